#pragma once
// The kernels of cpu/random.cpp, declared beside them (cpu/kernels.h gathers these headers for the
// op table). Each kernel's contract is its signature's in ops/signatures.h.
#include "ditto/random.h"
#include "ditto/tensor.h"

namespace ditto::cpu {
void uniform(const Tensor& t, double from, double to, Generator& g);
void normal(const Tensor& t, double mean, double std, Generator& g);
void random_from_to(const Tensor& t, int64_t from, int64_t to, Generator& g);
void bernoulli_scalar(const Tensor& t, double p, Generator& g);
void bernoulli_tensor(const Tensor& out, const Tensor& p, Generator& g);
void exponential(const Tensor& t, Generator& g);
void randperm(const Tensor& t, Generator& g);
void multinomial_with_replacement(const Tensor& out, const Tensor& p, Generator& g);
}  // namespace ditto::cpu
