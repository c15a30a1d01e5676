// Lookup cost of the run-time library on the CPU, on a release file the size of a shipped one
// (sgemm's spec; two GPUs; 64 problem points each with 5 kept configs; 2000 observations):
// opening it, a first lookup at an untuned size (nearest problem), and a memoized one. Prints
// a line for bench/RESULTS.md; exits 1 when a goal (10 ms, 1 ms, 1 us) is missed.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gputune/runtime.h"
#include "support/release_writer.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace rt = gputune::runtime;

const char kSgemm[] = R"json({"problem": {"m": 4096, "n": 4096, "k": 4096},
  "parameters": {"BM": [32, 64, 128], "BN": [32, 64, 128, 256], "BK": [8, 16], "TM": [1, 4, 8],
                 "TN": [1, 4, 8, 16], "WX": [4, 8, 16, 32], "ASYNC": [0, 1],
                 "STAGES": [1, 2, 3, 4], "PAD": [0, 4], "UNROLL": [2, 16],
                 "block_order": ["row", "swizzle8"], "max_registers": [0, 128]},
  "constraints": ["(BM / TM) * (BN / TN) >= 64 && (BM / TM) * (BN / TN) <= 1024",
                  "BN % (WX * TN) == 0 && BM % (32 / WX * TM) == 0"],
  "launch": [{"kernel": "sgemm", "block": ["(BM / TM) * (BN / TN)"],
              "grid": ["ceil(n / BN)", "ceil(m / BM)"],
              "shared_bytes": "4 * STAGES * BK * (BM + PAD + BN)"}],
  "baseline": {"BM": 32, "BN": 32, "BK": 8, "TM": 1, "TN": 1, "WX": 32, "ASYNC": 0,
               "STAGES": 1, "PAD": 0, "UNROLL": 2, "block_order": "row", "max_registers": 0}})json";

std::string config(int bm, int bn, int tm, int tn, int wx, int stages) {
  char text[256];
  std::snprintf(text, sizeof(text),
                "{\"ASYNC\":0,\"BK\":8,\"BM\":%d,\"BN\":%d,\"PAD\":0,\"STAGES\":%d,\"TM\":%d,"
                "\"TN\":%d,\"UNROLL\":16,\"WX\":%d,\"block_order\":\"row\",\"max_registers\":0}",
                bm, bn, stages, tm, tn, wx);
  return text;
}

std::string write_release(const std::string& path) {
  gputune::testing::ReleaseWriter w(path);
  const int64_t k = w.kernel("sgemm", kSgemm);
  const int64_t devices[] = {w.device("NVIDIA H100 80GB HBM3", 9, 0, 132),
                             w.device("NVIDIA H200", 9, 0, 132)};
  w.exec("BEGIN");
  std::mt19937 random(1);
  const std::vector<std::string> configs = {
      config(64, 64, 4, 4, 16, 1), config(128, 128, 8, 8, 16, 2), config(128, 64, 8, 4, 16, 1),
      config(64, 128, 4, 8, 16, 2), config(128, 256, 8, 16, 16, 2)};
  for (const int64_t device : devices) {
    for (int m = 512; m <= 16384; m *= 2) {
      for (int n = 512; n <= 16384; n *= 4) {
        for (int kk : {512, 4096}) {
          const std::string problem = "{\"k\":" + std::to_string(kk) +
                                      ",\"m\":" + std::to_string(m) +
                                      ",\"n\":" + std::to_string(n) + "}";
          for (int rank = 0; rank < 5; ++rank) {
            w.choice(k, device, problem, rank, w.config(k, configs[(rank + m / 512) % 5]),
                     1.0 + rank * 0.01, 128, 0);
          }
        }
      }
    }
    for (int i = 0; i < 1000; ++i) {
      w.observation(k, device, "{\"k\":4096,\"m\":4096,\"n\":4096}", configs[i % 5],
                    1.0 + (random() % 100) * 0.01);
    }
  }
  w.exec("COMMIT");
  return path;
}

template <typename Body>
double median_seconds(int repeats, Body body) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    body();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main() {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("gputune_runtime_bench_" + std::to_string(getpid()) + ".gtrel"))
                               .string();
  write_release(path);
  const rt::DeviceDescription h100 =
      rt::DeviceDescription::described("NVIDIA H100 80GB HBM3", 9, 0, 132);
  const rt::ProblemValues untuned{{"m", 3000}, {"n", 5000}, {"k", 1000}};

  const double open_s = median_seconds(21, [&] { rt::Selector::open({path}); });
  const double first_s = median_seconds(21, [&] {
    const rt::Selector selector = rt::Selector::open({path});
    selector.select("sgemm", untuned, h100);
  });
  // The first lookup alone: the open measured above subtracted.
  const double first_lookup_s = std::max(0.0, first_s - open_s);
  const rt::Selector selector = rt::Selector::open({path});
  const rt::Selection answer = selector.select("sgemm", untuned, h100);
  constexpr int kMemoized = 200000;
  const double memo_s = median_seconds(5,
                                       [&] {
                                         for (int i = 0; i < kMemoized; ++i)
                                           selector.select("sgemm", untuned, h100);
                                       }) /
                        kMemoized;
  std::filesystem::remove(path);

  const bool ok = open_s <= 10e-3 && first_lookup_s <= 1e-3 && memo_s <= 1e-6;
  std::printf(
      "| runtime lookup (sgemm, 2 GPUs x 64 points x 5 configs, %s tier) | open %.2f ms | "
      "first lookup %.3f ms | memoized %.3f us | goals 10 ms, 1 ms, 1 us: %s |\n",
      rt::tier_name(answer.tier), open_s * 1e3, first_lookup_s * 1e3, memo_s * 1e6,
      ok ? "met" : "MISSED");
  return ok ? 0 : 1;
}
