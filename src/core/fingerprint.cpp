#include "ditto/fingerprint.h"

#include <cstdio>

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
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  for (const Tensor& t : tensors) {
    DITTO_CHECK(t.defined(), "fingerprint", "undefined tensor");
    feed(st, t);
  }
  const uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  return h;
}

uint64_t fingerprint(const Tensor& t) { return fingerprint(std::vector<Tensor>{t}); }

std::string fingerprint_hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace ditto
