#pragma once
// Random numbers identical to PyTorch's CPU generator (MT19937 with PyTorch's seeding, draw
// order and distribution algorithms, its AVX2 flavour: see docs/spec/pytorch-cpu-rng.md).
// The same seed gives the same bits as PyTorch on x86-64, on every CPU ditto runs on.
#include <cstdint>

#include "ditto/generator.h"
#include "ditto/tensor.h"

namespace ditto {

Tensor rand(const Shape& size, ScalarType dtype = kFloat32, Generator* gen = nullptr);
Tensor randn(const Shape& size, ScalarType dtype = kFloat32, Generator* gen = nullptr);
Tensor rand(const Shape& size, Generator* gen);
Tensor randn(const Shape& size, Generator* gen);
Tensor rand_like(const Tensor& t, Generator* gen = nullptr);
Tensor randn_like(const Tensor& t, Generator* gen = nullptr);
// Integers uniform in [low, high), int64 by default.
Tensor randint(int64_t low, int64_t high, const Shape& size, ScalarType dtype = kInt64, Generator* gen = nullptr);
Tensor randint(int64_t high, const Shape& size, ScalarType dtype = kInt64, Generator* gen = nullptr);
Tensor randperm(int64_t n, ScalarType dtype = kInt64, Generator* gen = nullptr);
// Samples 0/1 with probabilities from p (float32: compared in float, float64: in double).
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
Tensor normal(double mean, double std, const Shape& size, ScalarType dtype = kFloat32, Generator* gen = nullptr);
// num_samples category indices per row of probs (1-D or 2-D, non-negative weights), as
// torch.multinomial with PyTorch 1.13's bits for a seed: without replacement the Gumbel trick
// argmax/topk(p / q), q ~ Exp(1) drawn per element; with replacement PyTorch's cumulative sum and
// binary search, one U53 draw per sample (2.x also samples one with replacement by the trick).
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false, Generator* gen = nullptr);

}  // namespace ditto
