#pragma once
// A 64-bit fingerprint of a tensor's dtype, shape and values (bits, in logical row-major order,
// whatever the memory layout), for comparing runs: two tensors with the same fingerprint hold
// the same bits (up to xxHash's collision odds).
#include <cstdint>
#include <string>
#include <vector>

#include "ditto/tensor.h"

namespace ditto {

uint64_t fingerprint(const Tensor& t);
uint64_t fingerprint(const std::vector<Tensor>& tensors);
// 16 hex digits.
std::string fingerprint_hex(uint64_t h);

}  // namespace ditto
