#pragma once
// The direct convolution's register tiles per level (cpu/conv_impl.h) and the choice of level.
// Every level gives the same bits (Note [Convolution accumulation order], cpu/conv.cpp).
#include <cstdint>

namespace ditto::cpu::conv_kernels {

// One tap (kh, kw) of an input-gradient tile: its index j = kh * kW + kw, the offset of the
// output gradients of the tile's first position in a gradient plane, and the output position's offset from
// the input position's, as (oh, ow) = (ih - dh, iw - dw): dh = kh * dH - pH, dw = kw * dW - pW.
struct InputTap {
  int64_t j, goff, dh, dw;
};

// Where a forward vector's outputs go: lanes [lo, lo + n) to the output plane's elements
// [off, off + n) (a vector of a padded row plane holds up to W outputs in one or more runs).
struct OutRun {
  int64_t off;
  int lo, n;
};

// Vectors side by side in an input-gradient tile: its two shapes (channels x vectors) have
// 2 and 3; cpu/conv.cpp takes, per convolution, the one that computes fewer padded rows and lanes
// (6 x 2 and 4 x 3 at AVX-512 and AVX2: 16 input channels fill four 4-channel blocks but three
// 6-channel ones hold two empty rows).
inline constexpr int kInputVectors0 = 2, kInputVectors1 = 3;
inline constexpr int kInputVectors[2] = {kInputVectors0, kInputVectors1};

// Tests: make every input-gradient tile the given shape (0 or 1, by kInputVectors); -1, the
// default, chooses per convolution. The bits are the same either way.
void force_input_tile_for_testing(int shape);

// Tests: make every forward that can read the input in place (stride 1, oW = W) do so (1) or read
// a padded copy (0) at any level; -1, the default, chooses per convolution (unpadded: in place;
// padded: by Tiles' kForwardInPlace and the CPU). The bits are the same either way.
void force_forward_in_place_for_testing(int in_place);

template <class T>
struct Kernels {
  using Forward = void (*)(int64_t K, const int64_t* koff, const T* const* xb, const T* const* mk, const int32_t* kj,
                           const T* wp, T* y, int64_t ldy, const OutRun* runs, const int* first, int rows,
                           const T* bias);
  using Weight = void (*)(int64_t npos, const int64_t* pos, const T* x, const int64_t* toff, const T* gy, int64_t ldg,
                          T* acc, int64_t lda, bool load);
  using Input = void (*)(int64_t Og, int ntaps, const InputTap* taps, const T* wk, const T* gy, int64_t ldo, int64_t oH,
                         int64_t oW, const T* ih, const T* iw, int64_t groups, T* gx, int64_t ldx, int64_t count,
                         int rows, const T* bias);
  using Pad = void (*)(const T* src, int64_t lds, int64_t step, int64_t n, int64_t lead, T* dst, int64_t ldd,
                       int64_t rows);
  using PackTaps = void (*)(T* dst, const T* x, const int32_t* lane_off, const int64_t* step_off, int64_t steps,
                            int64_t n, int w);
  int lanes;              // of a vector
  int forward_rows;       // output channels of a forward tile
  int forward_vectors;    // vectors of output positions
  Forward forward[2];     // [0] plain loads (a padded copy, or an unpadded input in place), [1] through lane masks
  bool forward_in_place;  // whether [1] pays where it applies (padded convolutions read in place)
  int weight_rows[4];     // taps of a weight tile of 1..4 vectors of output channels
  Weight weight[4];
  int input_rows[2];  // input channels of an input-gradient tile of kInputVectors[i] vectors
  Input input[2];
  Pad pad_rows;        // the padded copy's rows (cpu/conv.cpp's fill_padded)
  PackTaps pack_taps;  // the GEMM's B panels from a padded copy (cpu/conv.cpp's small planes)
};

// Tile shapes by register file: AVX-512 (32 vector registers of 64 bytes), AVX2 (16 of 32 bytes),
// scalar (one element a "vector"). Accumulators + operand vectors + a broadcast fit the file.
template <class V>
struct Tiles {
  static constexpr int kBytes = V::N * int(sizeof(typename V::Scalar));
  static constexpr bool kWide = kBytes == 64, kAvx2 = kBytes == 32;
  static constexpr int kForwardRows = kWide ? 8 : 4;
  static constexpr int kForwardVectors = kWide || kAvx2 ? 3 : 2;
  // The in-place forward's AND per loaded vector (padded convolutions; unpadded ones read in place
  // at every level, without masks): free beside AVX-512's 8 x 3 tile on Zen 4 (24 FMAs to 14 loads
  // a tap; cpu/conv.cpp takes it on AMD cores only); AVX2's 4 x 3 tile (12 FMAs to 7 loads, 10
  // with the masks) measured 15 % slower.
  static constexpr bool kForwardInPlace = kWide;
  static constexpr int weight_rows(int vectors) { return (kWide ? 24 : kAvx2 ? 12 : 8) / vectors; }
  // Input gradient: 12 accumulators at AVX2 as at AVX-512, though with the tile's 12 sums they
  // overflow AVX2's 16 registers: the sums, touched once per tap, live on the stack. With 6
  // accumulators (3 x 2), 4 cycles of FMA latency left the FMA units idle a quarter of the time:
  // 2x slower than AVX-512 on Zen 4, whose FMA units are 256 bits wide either way (ResNet's input
  // gradient 35.4 -> 19.5 ms); 16 measured 30 ms, and 24 at AVX-512 6 % slower than 12.
  static constexpr int kInputRows0 = (kWide || kAvx2 ? 12 : 6) / kInputVectors0;
  static constexpr int kInputRows1 = (kWide || kAvx2 ? 12 : 6) / kInputVectors1;
};

#define DITTO_CONV_DECLARE(level)                   \
  const Kernels<float>& conv_kernels_f32_##level(); \
  const Kernels<double>& conv_kernels_f64_##level();
DITTO_CONV_DECLARE(scalar)
DITTO_CONV_DECLARE(avx2)
DITTO_CONV_DECLARE(avx512)
#undef DITTO_CONV_DECLARE

}  // namespace ditto::cpu::conv_kernels
