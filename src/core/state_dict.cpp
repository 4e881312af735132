#include "ditto/state_dict.h"

#include "ditto/error.h"

namespace ditto {

StateDict::StateDict(std::initializer_list<Item> items) {
  for (const Item& i : items) insert(i.first, i.second);
}

void StateDict::insert(std::string name, Tensor t) {
  DITTO_CHECK(index_.emplace(name, items_.size()).second, "StateDict", "duplicate name \"", name, "\"");
  items_.emplace_back(std::move(name), std::move(t));
}

const Tensor* StateDict::find(const std::string& name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &items_[it->second].second;
}

const Tensor& StateDict::at(const std::string& name) const {
  const Tensor* t = find(name);
  DITTO_CHECK(t != nullptr, "StateDict", "no tensor named \"", name, "\"");
  return *t;
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const Item& i : items_) out.push_back(i.first);
  return out;
}

}  // namespace ditto
