#pragma once
// Saving and loading: safetensors files (Hugging Face's format, which PyTorch and most of the
// ecosystem read) and checkpoints that resume a run bit for bit.
#include <cstdint>
#include <string>
#include <vector>

#include "ditto/nn/module.h"
#include "ditto/optim.h"
#include "ditto/random.h"
#include "ditto/state_dict.h"

namespace ditto {

// --- safetensors
// Writes `tensors` (any layout; stored row-major, little-endian) and `metadata` to `path`
// atomically: a temporary file in the same directory, fsync, then rename over `path`, so a crash
// mid-write leaves the old file or the new one, never a truncated one. Tensors are laid out by
// element size (8-byte dtypes first), so each is aligned in the file.
void save_safetensors(const std::string& path, const StateDict& tensors, const Metadata& metadata = {});

struct SafetensorsFile {
  StateDict tensors;  // in the file's data order
  Metadata metadata;
  // What was not read as stored: "tensor \"w\": F16 read into float32 (exactly)". Each note is
  // also a ditto warning.
  std::vector<std::string> notes;
};
// Reads a safetensors file, memory-mapped: tensors whose bytes are aligned in the file are views
// of the (copy-on-write) mapping, so a large file is not copied; the mapping lives as long as
// one of them does. The file is untrusted input: anything malformed raises ditto::Error naming
// the file and what is wrong (tests/test_serialize.cpp lists the cases). Dtypes: F32, F64, I64,
// I32, BOOL; F16 and BF16 are read into float32.
SafetensorsFile load_safetensors(const std::string& path);

// --- checkpoints
// Everything that decides the rest of a run, in one safetensors file: the model's state_dict
// ("model.<name>"), the optimizer's state and lr, each scheduler's position, each generator's
// state (the default generator first unless include_default_generator is false), the step and
// the user's metadata. Written atomically, as save_safetensors.
void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer& optimizer,
                     const std::vector<const optim::LRScheduler*>& schedulers = {},
                     const std::vector<const Generator*>& generators = {}, int64_t step = 0,
                     const Metadata& metadata = {}, bool include_default_generator = true);

struct Checkpoint {
  int64_t step = 0;
  Metadata metadata;  // the user's
};
// Restores what save_checkpoint saved into objects built as the saving run built them (the same
// architecture, optimizer type and options, schedulers and generators, in the same order); a
// mismatch raises ditto::Error naming what differs.
Checkpoint load_checkpoint(const std::string& path, nn::Module& model, optim::Optimizer& optimizer,
                           const std::vector<optim::LRScheduler*>& schedulers = {},
                           const std::vector<Generator*>& generators = {}, bool include_default_generator = true);

}  // namespace ditto
