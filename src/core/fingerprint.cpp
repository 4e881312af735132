#include "ditto/fingerprint.h"

#include <cstdio>
#include <memory>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ditto {

namespace {
void feed(XXH3_state_t* st, const Tensor& t) {
  const int64_t dt = static_cast<int64_t>(t.dtype()), nd = t.dim();
  XXH3_64bits_update(st, &dt, sizeof dt);
  XXH3_64bits_update(st, &nd, sizeof nd);
  XXH3_64bits_update(st, t.sizes().data(), sizeof(int64_t) * t.sizes().size());
  const Tensor c = t.contiguous();
  XXH3_64bits_update(st, c.raw_data(), static_cast<std::size_t>(c.numel()) * c.element_size());
}
}  // namespace

uint64_t fingerprint(const std::vector<Tensor>& tensors) {
  // The state is freed however this returns (an undefined tensor throws half-way).
  const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> st(XXH3_createState(), &XXH3_freeState);
  DITTO_CHECK(st != nullptr, "fingerprint", "out of memory");
  XXH3_64bits_reset(st.get());
  for (const Tensor& t : tensors) {
    DITTO_CHECK(t.defined(), "fingerprint", "undefined tensor");
    feed(st.get(), t);
  }
  return XXH3_64bits_digest(st.get());
}

uint64_t fingerprint(const Tensor& t) { return fingerprint(std::vector<Tensor>{t}); }

std::string fingerprint_hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace ditto
