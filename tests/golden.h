#pragma once
// The one reader of the known-answer files in tests/data/ (made from PyTorch by tools/gen_*.py),
// all in one schema (tools/golden_json.py): {"torch_version", "generator", "meta", "sections":
// {name: cases}}, tensors as {"dtype", "sizes", "data"}. Parsed once per file and kept; a missing
// or malformed file or section fails loudly (std::runtime_error, which fails the calling test),
// never reads as an empty set of cases.
#include <bit>
#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "ditto/ditto.h"

namespace ditto::testing {

inline const nlohmann::json& golden_file(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, nlohmann::json> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const std::string path = std::string(DITTO_TEST_DATA) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open the known-answer file " + path);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || doc.empty())
    throw std::runtime_error("the known-answer file " + path + " is not a JSON object with entries");
  return cache.emplace(name, std::move(doc)).first->second;
}

// A section of a file: throws when it is missing or empty.
inline const nlohmann::json& golden_section(const std::string& file, const std::string& name) {
  const nlohmann::json& doc = golden_file(file);
  if (!doc.contains("sections") || !doc.at("sections").contains(name) || doc.at("sections").at(name).empty())
    throw std::runtime_error("tests/data/" + file + " has no cases in section '" + name + "' (regenerate it with " +
                             doc.value("generator", std::string("its tools/gen_*.py script")) + ")");
  return doc.at("sections").at(name);
}

// A tensor in the files' one encoding: {"dtype", "sizes", "data"}, floats as raw IEEE-754 bits in
// hex strings, integers as numbers, bools as true/false; null is an undefined tensor.
inline Tensor golden_tensor(const nlohmann::json& j) {
  if (j.is_null()) return Tensor();
  const std::string dt = j.at("dtype").get<std::string>();
  const Shape sizes = j.at("sizes").get<Shape>();
  const nlohmann::json& d = j.at("data");
  auto bits = [](const nlohmann::json& v) { return std::stoull(v.get<std::string>(), nullptr, 16); };
  if (dt == "float32") {
    std::vector<float> v;
    for (const auto& x : d) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits(x))));
    return from_vector(v, sizes);
  }
  if (dt == "float64") {
    std::vector<double> v;
    for (const auto& x : d) v.push_back(std::bit_cast<double>(static_cast<uint64_t>(bits(x))));
    return from_vector(v, sizes);
  }
  if (dt == "int64") return from_vector(d.get<std::vector<int64_t>>(), sizes);
  if (dt == "int32") return from_vector(d.get<std::vector<int64_t>>(), sizes).to(kInt32);
  if (dt == "bool") {
    std::vector<bool> v;
    for (const auto& x : d) v.push_back(x.get<bool>());
    return from_vector(v, sizes);
  }
  throw std::runtime_error("a known-answer tensor has dtype '" + dt + "', which ditto's tests do not read");
}

}  // namespace ditto::testing
