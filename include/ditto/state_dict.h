#pragma once
// StateDict: named tensors in insertion order, as PyTorch's OrderedDict state_dict (a module's
// parameters and buffers under their dotted names, "layers.0.weight"). Names are unique.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ditto/tensor.h"

namespace ditto {

class StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;
  StateDict() = default;
  StateDict(std::initializer_list<Item> items);

  // Raises ditto::Error on a name already present.
  void insert(std::string name, Tensor t);
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  // nullptr when absent.
  const Tensor* find(const std::string& name) const;
  // Raises ditto::Error naming `name` when absent.
  const Tensor& at(const std::string& name) const;
  std::vector<std::string> keys() const;
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  std::vector<Item>::const_iterator end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
  std::map<std::string, std::size_t> index_;
};

// String metadata (safetensors' "__metadata__"), ordered by key.
using Metadata = std::map<std::string, std::string>;

}  // namespace ditto
