// Properties of the run-time selector over random release files: it never returns a config
// that fails a constraint or a device limit at the target problem, answers the same from many
// threads at once, and memoizes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <thread>

#include "gputune/runtime.h"
#include "support/release_writer.h"

namespace gputune::runtime {
namespace {

namespace fs = std::filesystem;
using testing::ReleaseWriter;

// Constraints that depend on the problem: which stored configs are valid moves with m and n.
const char kSpec[] = R"json({"problem": {"m": 1024, "n": 1024},
  "parameters": {"BM": [16, 32, 48, 64, 128], "BN": [16, 32, 64, 96], "T": [1, 2, 4, 8]},
  "constraints": ["m % BM == 0", "n % BN == 0", "BM * BN / T <= 1024", "BM / T >= 2"],
  "launch": [{"kernel": "k", "grid": ["n / BN", "m / BM"], "block": ["BM * BN / T / 8"],
              "shared_bytes": "8 * BM * BN"}],
  "baseline": {"BM": 16, "BN": 16, "T": 1}})json";

const int kBm[] = {16, 32, 48, 64, 128};
const int kBn[] = {16, 32, 64, 96};
const int kT[] = {1, 2, 4, 8};

struct Point {
  int bm, bn, t;
};

bool valid(const Point& c, double m, double n, const DeviceDescription& d) {
  const double threads = c.bm * c.bn / c.t / 8.0;
  return std::fmod(m, c.bm) == 0 && std::fmod(n, c.bn) == 0 && c.bm * c.bn / c.t <= 1024 &&
         c.bm / c.t >= 2 && threads == std::floor(threads) && threads >= 1 &&
         threads <= d.max_threads_per_block && 8.0 * c.bm * c.bn <= d.max_shared_bytes_per_block;
}

std::string config_json(const Point& c) {
  return "{\"BM\":" + std::to_string(c.bm) + ",\"BN\":" + std::to_string(c.bn) +
         ",\"T\":" + std::to_string(c.t) + "}";
}

class PropertyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = (fs::temp_directory_path() /
             ("gputune_runtime_property_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".gtrel"))
                .string();
    std::mt19937 random(7);
    ReleaseWriter w(file_);
    const int64_t k = w.kernel("k", kSpec);
    const int64_t devices[] = {w.device("NVIDIA H100", 9, 0, 132),
                               w.device("NVIDIA H200", 9, 0, 132),
                               w.device("NVIDIA A100", 8, 0, 108)};
    w.config(k, config_json({16, 16, 1}), true);
    auto any = [&](auto& list) { return list[random() % (sizeof(list) / sizeof(list[0]))]; };
    for (int p = 0; p < 40; ++p) {
      const int m = 16 * (1 + static_cast<int>(random() % 256));
      const int n = 16 * (1 + static_cast<int>(random() % 256));
      const int64_t device = devices[random() % 3];
      const std::string problem =
          "{\"m\":" + std::to_string(m) + ",\"n\":" + std::to_string(n) + "}";
      for (int rank = 0; rank < 3; ++rank) {
        // Stored configs need not be valid anywhere: the selector must check.
        const Point c{any(kBm), any(kBn), any(kT)};
        w.choice(k, device, problem, rank, w.config(k, config_json(c)), 1.0 + rank,
                 static_cast<int>(random() % 128), static_cast<int>(random() % 4096));
        w.observation(k, device, problem, config_json(c), 1.0 + rank + m * n * 1e-7);
      }
    }
  }
  void TearDown() override { fs::remove(file_); }
  std::string file_;
};

TEST_F(PropertyTest, NeverReturnsAConfigInvalidAtTheTarget) {
  const Selector selector = Selector::open({file_});
  std::mt19937 random(11);
  const DeviceDescription devices[] = {
      DeviceDescription::described("NVIDIA H100", 9, 0, 132),
      DeviceDescription::described("NVIDIA H100 PCIe", 9, 0, 114),
      DeviceDescription::described("NVIDIA B200", 10, 0, 148),
      DeviceDescription::described("Tesla V100", 7, 0, 80),
  };
  int tiers[6] = {};
  int carried_by_estimate = 0;  // nearest-problem answers not from the nearest point's ranks
  for (int i = 0; i < 400; ++i) {
    DeviceDescription device = devices[random() % 4];
    if (random() % 4 == 0) device.max_shared_bytes_per_block = 16 * 1024;
    if (random() % 4 == 0) device.max_threads_per_block = 64;
    const double m = 8.0 * (1 + random() % 600);
    const double n = 8.0 * (1 + random() % 600);
    const Selection s = selector.select("k", {{"m", m}, {"n", n}}, device);
    ++tiers[static_cast<int>(s.tier)];
    if (s.explanation.find("over the nearest point's") != std::string::npos) ++carried_by_estimate;
    const Point c{static_cast<int>(s.number("BM")), static_cast<int>(s.number("BN")),
                  static_cast<int>(s.number("T"))};
    if (s.tier == Tier::kDefault && s.launches.empty()) continue;  // said not to launch
    EXPECT_TRUE(valid(c, m, n, device)) << "m=" << m << " n=" << n << " " << s.explanation;
    ASSERT_EQ(s.launches.size(), 1u);
    EXPECT_EQ(s.launches[0].grid[0], n / c.bn);
    EXPECT_EQ(s.launches[0].grid[1], m / c.bm);
  }
  EXPECT_GT(tiers[static_cast<int>(Tier::kNearestProblem)], 0);
  EXPECT_GT(carried_by_estimate, 0);
  EXPECT_GT(tiers[static_cast<int>(Tier::kSameFamily)], 0);
  EXPECT_GT(tiers[static_cast<int>(Tier::kModel)], 0);
  EXPECT_GT(tiers[static_cast<int>(Tier::kDefault)], 0);
}

TEST_F(PropertyTest, ManyThreadsGetTheAnswersOneThreadGets) {
  const Selector reference = Selector::open({file_});
  const Selector shared = Selector::open({file_});
  const DeviceDescription h100 = DeviceDescription::described("NVIDIA H100", 9, 0, 132);
  std::vector<ProblemValues> problems;
  for (int i = 1; i <= 50; ++i) problems.push_back({{"m", 64.0 * i}, {"n", 32.0 * (51 - i)}});
  std::vector<std::string> expected;
  for (const ProblemValues& p : problems)
    expected.push_back(reference.select("k", p, h100).to_json());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (size_t i = 0; i < problems.size(); ++i) {
          const size_t at = (i + t * 7) % problems.size();
          if (shared.select("k", problems[at], h100).to_json() != expected[at]) ++mismatches;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(PropertyTest, RepeatedLookupsAreMemoized) {
  const Selector selector = Selector::open({file_});
  const DeviceDescription b200 = DeviceDescription::described("NVIDIA B200", 10, 0, 148);
  const ProblemValues problem{{"m", 4096}, {"n", 4096}};
  const auto first_start = std::chrono::steady_clock::now();
  const Selection first = selector.select("k", problem, b200);  // trains the model
  const auto first_time = std::chrono::steady_clock::now() - first_start;
  const auto again_start = std::chrono::steady_clock::now();
  const Selection again = selector.select("k", problem, b200);
  const auto again_time = std::chrono::steady_clock::now() - again_start;
  EXPECT_EQ(first.to_json(), again.to_json());
  EXPECT_LT(again_time, first_time);
}

}  // namespace
}  // namespace gputune::runtime
