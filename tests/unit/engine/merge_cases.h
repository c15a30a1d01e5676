#pragma once
// The kernels of tests/fixtures/engine the merge tests rewrite, and the knob values they rewrite
// them with.
#include <string>
#include <vector>

#include "support/engine_golden.h"

namespace gputune::test {

struct MergeKernel {
  std::string name;
  bool two_d;  // reads threadIdx.y and blockIdx.y
};

inline const std::vector<MergeKernel>& merge_kernels() {
  static const std::vector<MergeKernel> kernels = {
      {"vector_add", false}, {"saxpy", false},    {"matmul", true},       {"matmul_return", true},
      {"stencil", true},     {"transpose", true}, {"matmul_tiled", true}, {"nbody", false},
      {"reduce", false},     {"branches", false}};
  return kernels;
}

struct Variant {
  std::string suffix;  // of the golden file: "tm_x2", "tm_y4c" (consecutive), "bm_x2"
  engine::SourceKnobs knobs;
};

inline std::vector<Variant> thread_merge_variants(bool two_d) {
  std::vector<Variant> variants;
  for (const char axis : std::string(two_d ? "xy" : "x")) {
    for (const int n : {2, 4}) {
      for (const engine::MergeLayout layout :
           {engine::MergeLayout::kStrided, engine::MergeLayout::kConsecutive}) {
        Variant variant;
        variant.suffix = std::string("tm_") + axis + std::to_string(n) +
                         (layout == engine::MergeLayout::kConsecutive ? "c" : "");
        (axis == 'x' ? variant.knobs.thread_merge_x : variant.knobs.thread_merge_y) = n;
        variant.knobs.merge_layout = layout;
        variants.push_back(variant);
      }
    }
  }
  if (two_d) {
    for (const int n : {2, 4}) {
      Variant variant;
      variant.suffix = "tm_x" + std::to_string(n) + "y" + std::to_string(n);
      variant.knobs.thread_merge_x = variant.knobs.thread_merge_y = n;
      variants.push_back(variant);
    }
  }
  return variants;
}

inline std::vector<Variant> block_merge_variants(bool two_d) {
  std::vector<Variant> variants;
  Variant x;
  x.suffix = "bm_x2";
  x.knobs.block_merge_x = 2;
  variants.push_back(x);
  if (two_d) {
    Variant y;
    y.suffix = "bm_y2";
    y.knobs.block_merge_y = 2;
    variants.push_back(y);
    Variant both;
    both.suffix = "bm_x2y2";
    both.knobs.block_merge_x = both.knobs.block_merge_y = 2;
    variants.push_back(both);
  }
  return variants;
}

// Both merges at once: block merge first, then thread merge on its output.
inline std::vector<Variant> combined_variants(bool two_d) {
  std::vector<Variant> variants;
  Variant x;
  x.suffix = "bm_x2.tm_x2";
  x.knobs.block_merge_x = x.knobs.thread_merge_x = 2;
  variants.push_back(x);
  if (two_d) {
    Variant y;
    y.suffix = "bm_x2.tm_y4";
    y.knobs.block_merge_x = 2;
    y.knobs.thread_merge_y = 4;
    variants.push_back(y);
  }
  return variants;
}

// The golden of a rewrite: the source, or the refusal.
inline void expect_rewrite_golden(const std::string& kernel, const Variant& variant) {
  const engine::Rewrite rewrite =
      engine::source_engine().rewrite(engine_fixture(kernel + ".cu"), variant.knobs);
  if (rewrite.ok) {
    expect_engine_golden(kernel + "." + variant.suffix + ".cu", rewrite.source);
  } else {
    expect_engine_golden(kernel + "." + variant.suffix + ".refused", rewrite.message + "\n");
  }
}

}  // namespace gputune::test
