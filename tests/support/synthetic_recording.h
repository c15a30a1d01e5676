#pragma once
// Synthetic recorded spaces: a small spec and a made-up time function with the structure real
// kernels show (an optimal block size, unrolling that helps then hurts, vector loads that need
// wide tiles, bank conflicts without padding, failures where resources run out). For tests and
// for benchmarking the strategies until real GPU recordings exist. Not GPU data.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "replay/replay.h"
#include "search/search.h"
#include "spec/spec_loader.h"

namespace gputune::testing {

inline constexpr const char* kSyntheticSpec = R"(description: synthetic tiled kernel (test data)
kernel: {source: k.cu, name: k}
problem: {n: 1024}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [TX, TY], grid: [ceil(n / TX), ceil(n / TY)]}
parameters: {TX: [8, 16, 32, 64, 128], TY: [1, 2, 4, 8, 16], UNROLL: [1, 2, 4, 8],
             VEC: [1, 2, 4], PAD: [0, 1]}
transforms: {block_order: [row, diagonal, column]}
constraints: [TX * TY <= 1024, TX * TY >= 32]
baseline: {TX: 32, TY: 8, UNROLL: 1, VEC: 1, PAD: 0, block_order: row}
)";

// Writes the synthetic spec and its kernel into `dir`; returns the spec's path.
inline std::string write_synthetic_spec(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  std::ofstream(dir / "synthetic.yaml") << kSyntheticSpec;
  return (dir / "synthetic.yaml").string();
}

// Two made-up GPUs: 0 and 1 differ in speed and a little in where the optimum lies.
inline Measurement synthetic_measurement(const SearchSpace& space, uint64_t index, double n,
                                         int gpu) {
  auto number = [&](const char* name) {
    return space.dimensions()[space.dimension_index(name)]
        .values[space.decode(index)[space.dimension_index(name)]];
  };
  const double tx = number("TX").as_number(), ty = number("TY").as_number();
  const double unroll = number("UNROLL").as_number(), vec = number("VEC").as_number();
  const double pad = number("PAD").as_number();
  const std::string order = number("block_order").as_symbol();
  Measurement m;
  m.config_index = index;
  m.config = space.json(index);
  m.compile_ms = 40 + 5 * unroll * vec;
  m.registers = std::min(255, static_cast<int>(16 + 8 * unroll * vec));
  m.shared_bytes = static_cast<int>(4 * tx * (tx + pad));
  if (tx == 8 && vec == 4) {
    m.status = Status::kCompileError;
    m.message = "k.cu(1): error: vector width exceeds the tile";
    return m;
  }
  if (unroll * vec >= 16 && tx * ty >= 512) {
    m.status = Status::kResourceExceeded;
    m.message = "too many resources requested for launch";
    return m;
  }
  const double lt = std::log2(tx * ty), opt = gpu == 0 ? 8.0 : 7.5;
  const double u_opt = gpu == 0 ? 2.0 : 1.5;
  double log_ms = std::log(n * n / 1e6 * (gpu == 0 ? 1.0 : 0.6));
  log_ms += 0.12 * (lt - opt) * (lt - opt);
  log_ms += 0.10 * (std::log2(unroll) - u_opt) * (std::log2(unroll) - u_opt);
  log_ms += tx >= 16 ? -0.25 * std::log2(vec) : 0.15 * std::log2(vec);
  log_ms += pad == 0 ? (tx >= 32 ? 0.35 : 0.0) : 0.03;
  if (order == "diagonal") log_ms += -0.06 * (std::log2(n) - 10);
  if (order == "column") log_ms += 0.2;
  log_ms += 0.05 * std::abs(std::log2(ty) - 2);
  // Deterministic measurement noise of about +-2%.
  uint64_t h = index * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(n) * 31 ^ (gpu + 1) * 7919;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  log_ms += 0.02 * (static_cast<double>(h % 2001) / 1000.0 - 1.0);
  const double t = std::exp(log_ms);
  m.samples_ms = {t * 0.995, t, t * 1.004};
  return m;
}

// Answers with synthetic_measurement(); stands in for the GPU when recordings are made.
class SyntheticRunner : public Runner {
 public:
  SyntheticRunner(const SearchSpace& space, double n, int gpu) : space_(space), n_(n), gpu_(gpu) {
    device_.name = gpu == 0 ? "Synthetic GPU A" : "Synthetic GPU B";
    device_.cc_major = 9;
    device_.sm_count = gpu == 0 ? 132 : 114;
    device_.uuid = "synthetic";
  }
  const DeviceInfo& device() const override { return device_; }
  Measurement set_reference(const Candidate& c) override {
    return synthetic_measurement(space_, c.variant.index, n_, gpu_);
  }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> out;
    for (const auto& c : batch) {
      out.push_back(synthetic_measurement(space_, c.variant.index, n_, gpu_));
    }
    return out;
  }
  double measure_copy_bandwidth() override { return 3000; }

 private:
  const SearchSpace& space_;
  double n_;
  int gpu_;
  DeviceInfo device_;
};

// Measures every valid variant of the synthetic spec at `n` on synthetic GPU `gpu` through the
// search driver into `store` (the store's other workloads prune nothing: a recording is the
// whole space); returns the recording, marked synthetic.
inline Recording record_synthetic(Store& store, const std::string& spec_path, double n, int gpu) {
  Problem problem(load_spec(spec_path, {{"n", std::to_string(static_cast<int64_t>(n))}}));
  SyntheticRunner runner(problem.space(), n, gpu);
  auto compiler = make_replay_compiler();
  SearchOptions options;
  options.strategy = "brute_force";
  options.prune = false;
  SearchResult result = run_search(problem, runner, *compiler, store, options);
  Recording recording = recording_from_store(store, result.workload, "");
  recording.info.origin = "synthetic";
  return recording;
}

}  // namespace gputune::testing
