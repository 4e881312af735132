#pragma once
// The examples' checkpoint flags: `--save-at STEP PATH` (stop before step STEP, saving a
// checkpoint to PATH) or `--resume PATH` (go on from one).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

struct ResumeFlags {
  long long save_at = -1;  // -1: run to the end
  std::string path;
  bool resume = false;
};

// False (after printing the usage) on anything else.
inline bool parse_resume_flags(int argc, char** argv, ResumeFlags& f) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--save-at") == 0 && i + 2 < argc) {
      f.save_at = std::atoll(argv[++i]);
      f.path = argv[++i];
    } else if (std::strcmp(argv[i], "--resume") == 0 && i + 1 < argc) {
      f.resume = true;
      f.path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--save-at STEP PATH | --resume PATH]\n", argv[0]);
      return false;
    }
  }
  return true;
}
