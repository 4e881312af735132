#pragma once
// The kernels of cpu/random.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/generator.h"
#include "ditto/tensor_base.h"

namespace ditto::cpu {
void uniform(const TensorBase& t, double from, double to, Generator& g);
void normal(const TensorBase& t, double mean, double std, Generator& g);
void random_from_to(const TensorBase& t, int64_t from, int64_t to, Generator& g);
void bernoulli_scalar(const TensorBase& t, double p, Generator& g);
void bernoulli_tensor(const TensorBase& out, const TensorBase& p, Generator& g);
void exponential(const TensorBase& t, Generator& g);
void randperm(const TensorBase& t, Generator& g);
void multinomial_with_replacement(const TensorBase& out, const TensorBase& p, Generator& g);
}  // namespace ditto::cpu
