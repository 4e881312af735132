#pragma once
// The one reader of the known-answer files in tests/data/ (made from PyTorch by tools/gen_*.py):
// parsed once per file and kept; a missing or malformed file fails loudly (std::runtime_error,
// which fails the calling test), never reads as an empty set of cases.
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

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

// A section of a file in the sections schema ({"torch_version", "generator", "sections": {name:
// [cases]}}, tools/gen_golden_ops.py and gen_golden_nn.py): throws when it is missing or empty.
inline const nlohmann::json& golden_section(const std::string& file, const std::string& name) {
  const nlohmann::json& doc = golden_file(file);
  if (!doc.contains("sections") || !doc.at("sections").contains(name) || doc.at("sections").at(name).empty())
    throw std::runtime_error("tests/data/" + file + " has no cases in section '" + name + "' (regenerate it with " +
                             doc.value("generator", std::string("its tools/gen_*.py script")) + ")");
  return doc.at("sections").at(name);
}

}  // namespace ditto::testing
