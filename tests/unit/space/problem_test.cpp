#include "space/problem.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kKernel = R"(
template <int TILE, int PAD>
__global__ void transpose(float* out, const float* in, int n) {}
)";

// Line numbers matter: errors are expected at them.
const std::vector<std::string> kBase = {
    /* 1 */ "kernel:",
    /* 2 */ "  source: k.cu",
    /* 3 */ "  name: transpose<TILE, PAD>",
    /* 4 */ "  options: [--extra-device-vectorization]",
    /* 5 */ "problem: {n: 1000, m: n / 2 + 4}",
    /* 6 */ "arguments:",
    /* 7 */ "  - {name: out, type: float32, count: n*n, output: true}",
    /* 8 */ "  - {name: in, type: float32, count: m}",
    /* 9 */ "  - {name: n, type: int32, value: n}",
    /* 10 */ "  - {name: scale, type: float32, value: TILE / 64}",
    /* 11 */ "launch:",
    /* 12 */ "  block: [TILE, TILE / MERGE]",
    /* 13 */ "  grid: [ceil(n / TILE), ceil(n / TILE)]",
    /* 14 */ "  shared_bytes: TILE * (TILE + PAD) * 4",
    /* 15 */ "parameters:",
    /* 16 */ "  TILE: [16, 32, 64]",
    /* 17 */ "  PAD: [0, 1]",
    /* 18 */ "  MERGE: [1, 2, 4, 8]",
    /* 19 */ "transforms:",
    /* 20 */ "  block_order: [row, diagonal]",
    /* 21 */ "  max_registers: [0, 64]",
    /* 22 */ "  fast_math: [0, 1]",
    /* 23 */ "constraints:",
    /* 24 */ "  - TILE / MERGE >= 8",
    /* 25 */ "baseline: {TILE: 32}",
    /* 26 */ "metrics: {bytes: 2 * 4 * n * n, flops: n * TILE}",
};

class ProblemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_problem_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << kKernel;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path() const { return (dir_ / "spec.yaml").string(); }

  Spec spec(const std::vector<std::pair<int, std::string>>& replace = {},
            const Overrides& overrides = {}) {
    std::vector<std::string> lines = kBase;
    for (const auto& [line, content] : replace) lines.at(line - 1) = content;
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return parse_spec(text, path(), overrides);
  }

  std::string error(const std::function<void()>& action) {
    try {
      action();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
  }

  std::string include_dir() const {
    return (fs::path(path()).parent_path() / "k.cu").lexically_normal().parent_path().string();
  }

  fs::path dir_;
};

TEST_F(ProblemTest, AConstraintThatDoesNotCompileIsReportedWhereItWasWritten) {
  Spec unchecked = spec();
  unchecked.constraints.push_back({"TILE +", {path(), 24, 5}});
  const std::string message = error([&] { Problem problem(unchecked); });
  EXPECT_EQ(message.rfind(path() + ":24:5: cannot use constraint 2 'TILE +': ", 0), 0u) << message;
}

TEST_F(ProblemTest, ProblemValuesAndSpace) {
  // A device that takes 4096 threads per block keeps every config of this spec: only the
  // constraints prune here (TILE 64 with MERGE 1 or 2 exceeds 1024; see device_limit_test).
  Problem problem(spec(), {}, 4096);
  ASSERT_EQ(problem.problem_values().size(), 2u);
  EXPECT_DOUBLE_EQ(problem.problem_values()[1].second, 504);
  EXPECT_EQ(problem.problem_json(), R"({"n":1000,"m":504})");
  const SearchSpace& space = problem.space();
  ASSERT_EQ(space.dimensions().size(), 6u);
  EXPECT_EQ(space.size(), 3u * 2 * 4 * 2 * 2 * 2);
  EXPECT_TRUE(space.dimensions()[3].is_transform);
  EXPECT_FALSE(space.dimensions()[2].is_transform);
  // TILE / MERGE >= 8: TILE 16 allows MERGE 1, 2; 32: 1, 2, 4; 64: all four -> 9 of 12.
  EXPECT_EQ(space.count_valid(), 9u * 2 * 8);
  EXPECT_EQ(Problem(spec()).space().count_valid(), 7u * 2 * 8);
}

TEST_F(ProblemTest, SetOverrideChangesTheProblem) {
  Problem problem(spec({}, {{"n", "64"}}));
  EXPECT_EQ(problem.problem_json(), R"({"n":64,"m":36})");
  const auto buffers = problem.buffers();
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0].name, "out");
  EXPECT_EQ(buffers[0].count, 64u * 64);
  EXPECT_EQ(buffers[1].count, 36u);
  EXPECT_EQ(buffers[1].type, ScalarType::kFloat32);
}

TEST_F(ProblemTest, BaselineIndex) {
  Problem problem(spec());
  // Missing keys take the first value: TILE=32 PAD=0 MERGE=1 row 0 0.
  EXPECT_EQ(problem.space().describe(problem.baseline_index()),
            "TILE=32 PAD=0 MERGE=1 block_order=row max_registers=0 fast_math=0");
  Problem other(spec({{25, "baseline: {TILE: 64, MERGE: 8, block_order: diagonal}"}}));
  EXPECT_EQ(other.space().describe(other.baseline_index()),
            "TILE=64 PAD=0 MERGE=8 block_order=diagonal max_registers=0 fast_math=0");
}

TEST_F(ProblemTest, BaselineOutsideTheConstraints) {
  const std::string message = error([&] {
    Problem p(spec({{25, "baseline: {TILE: 16, MERGE: 8}"}}));
  });
  EXPECT_EQ(message.substr(0, path().size() + 7), path() + ":25:1: ") << message;
  EXPECT_NE(message.find("fails constraint 1 (TILE / MERGE >= 8)"), std::string::npos) << message;
  // With no baseline written, the first valid config is the baseline.
  Problem problem(spec({{18, "  MERGE: [4, 8]"}, {25, "#"}}));
  EXPECT_EQ(problem.space().describe(problem.baseline_index()),
            "TILE=32 PAD=0 MERGE=4 block_order=row max_registers=0 fast_math=0");
}

TEST_F(ProblemTest, VariantSubstitutesTemplateArgumentsAndOptions) {
  Problem problem(spec());
  const SearchSpace& space = problem.space();
  const uint64_t index = space.encode({2, 1, 1, 1, 1, 1});  // TILE=64 PAD=1 MERGE=2 ...
  const Variant v = problem.variant(index);
  EXPECT_EQ(v.index, index);
  EXPECT_EQ(v.config, R"({"TILE":64,"PAD":1,"MERGE":2,"block_order":"diagonal","max_registers":64,)"
                      R"("fast_math":1})");
  EXPECT_EQ(v.kernel_name_expressions, (std::vector<std::string>{"transpose<64, 1>"}));
  // The kernel's folder is on the include path, for "gputune.cuh" and the like.
  const std::string include = "--include-path=" + include_dir();
  EXPECT_EQ(v.compile_options, (std::vector<std::string>{"-DTILE=64", "-DPAD=1", "-DMERGE=2",
                                                         "--extra-device-vectorization", include,
                                                         "--maxrregcount=64", "--use_fast_math"}));
  EXPECT_NE(v.prelude.find("#define blockIdx"), std::string::npos);
  ASSERT_EQ(v.launches.size(), 1u);
  EXPECT_EQ(v.launches[0].kernel, 0u);
  EXPECT_EQ(v.launches[0].arguments, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(v.launches[0].block, (std::array<uint32_t, 3>{64, 32, 1}));
  EXPECT_EQ(v.launches[0].grid, (std::array<uint32_t, 3>{16, 16, 1}));  // ceil(1000 / 64)
  EXPECT_EQ(v.launches[0].dynamic_shared_bytes, 64u * 65 * 4);
  EXPECT_EQ(v.scalar_arguments, (std::vector<double>{1000, 1.0}));
  EXPECT_DOUBLE_EQ(problem.bytes(index), 8e6);
  EXPECT_DOUBLE_EQ(problem.flops(index), 64000);

  const Variant first = problem.variant(0);  // TILE=16 PAD=0 MERGE=1 row 0 0
  EXPECT_EQ(first.kernel_name_expressions, (std::vector<std::string>{"transpose<16, 0>"}));
  EXPECT_EQ(first.prelude, "");
  EXPECT_EQ(first.compile_options,
            (std::vector<std::string>{"-DTILE=16", "-DPAD=0", "-DMERGE=1",
                                      "--extra-device-vectorization", include}));
  EXPECT_EQ(first.launches.at(0).grid, (std::array<uint32_t, 3>{63, 63, 1}));
  EXPECT_EQ(first.scalar_arguments, (std::vector<double>{1000, 0.25}));
}

TEST_F(ProblemTest, TemplateSubstitutionMatchesWholeIdentifiersOnly) {
  Problem problem(
      spec({{3, "  name: transpose<TILE, PAD, TILE_X, (PAD + TILE)>"}, {18, "  MERGE: [1]"}}));
  EXPECT_EQ(problem.variant(problem.space().encode({1, 1, 0, 0, 0, 0})).kernel_name_expressions,
            (std::vector<std::string>{"transpose<32, 1, TILE_X, (1 + 32)>"}));
}

TEST_F(ProblemTest, MacrosOff) {
  std::vector<std::pair<int, std::string>> replace = {{4, "  macros: false"}};
  Problem problem(spec(replace));
  EXPECT_EQ(problem.variant(0).compile_options,
            (std::vector<std::string>{"--include-path=" + include_dir()}));
}

TEST_F(ProblemTest, NonIntegerLaunchDimension) {
  Problem problem(spec({{12, "  block: [TILE, TILE / 3]"}}));
  const std::string message = error([&] { problem.variant(0); });
  EXPECT_EQ(message.substr(0, path().size() + 8), path() + ":12:17: ") << message;
  EXPECT_NE(message.find("block[1] = TILE / 3 is 5.333"), std::string::npos) << message;
  EXPECT_NE(message.find("config TILE=16 PAD=0 MERGE=1"), std::string::npos) << message;
  EXPECT_NE(message.find("expected a positive integer"), std::string::npos) << message;
}

TEST_F(ProblemTest, ZeroOrHugeLaunchDimension) {
  Problem zero(spec({{13, "  grid: [n / TILE - 1000 / TILE]"}}));
  EXPECT_NE(error([&] { zero.variant(0); }).find(":13:10: grid[0] = n / TILE - 1000 / TILE is 0"),
            std::string::npos);
  Problem huge(spec({{13, "  grid: [n * n * n * n]"}}));
  EXPECT_NE(error([&] { huge.variant(0); }).find("no larger than 2147483647"), std::string::npos);
}

TEST_F(ProblemTest, NonIntegerScalarOfAnIntegerType) {
  Problem problem(spec({{9, "  - {name: n, type: int32, value: n / 3}"}}));
  const std::string message = error([&] { problem.variant(0); });
  EXPECT_NE(message.find(":9:35: value of 'n'"), std::string::npos) << message;
  EXPECT_NE(message.find("expected an integer"), std::string::npos) << message;
}

TEST_F(ProblemTest, BadBufferCount) {
  Problem problem(spec({{8, "  - {name: in, type: float32, count: m - 504}"}}));
  const std::string message = error([&] { problem.buffers(); });
  EXPECT_NE(message.find(":8:38: count of 'in'"), std::string::npos) << message;
  EXPECT_NE(message.find("expected a positive integer"), std::string::npos) << message;
}

TEST_F(ProblemTest, EmptySpaceAfterConstraints) {
  const std::string message = error([&] {
    Problem p(spec({{24, "  - TILE / MERGE >= 128"}, {25, "#"}}));
  });
  EXPECT_EQ(message.substr(0, path().size() + 7), path() + ":23:1: ") << message;
  EXPECT_NE(message.find("no config satisfies the constraints (192 configs, each fails at "
                         "least one)"),
            std::string::npos)
      << message;
}

TEST_F(ProblemTest, AKernelSourceWithoutAFolderIncludesFromTheWorkingDirectory) {
  Spec in_memory = spec();
  in_memory.kernel_path = "tune:transpose.cu";  // a name for source given as text
  EXPECT_EQ(Problem(in_memory).variant(0).compile_options,
            (std::vector<std::string>{"-DTILE=16", "-DPAD=0", "-DMERGE=1",
                                      "--extra-device-vectorization", "--include-path=."}));
}

TEST_F(ProblemTest, AnOriginWithoutALineNamesWhereTheValueCameFrom) {
  Spec origin = spec({{13, "  grid: [n / TILE - 1000 / TILE]"}});
  origin.launches[0].grid[0].where = {"tune(): grid[0]"};
  EXPECT_EQ(error([&] {
              Problem(origin).variant(0);
            }).rfind("tune(): grid[0]: grid[0] = n / TILE - 1000 / TILE is 0", 0),
            0u);
  // A baseline given in memory is still one that was asked for: outside the constraints, an
  // error, not the first valid config.
  Spec baseline = spec({{25, "baseline: {TILE: 16, MERGE: 8}"}});
  baseline.baseline_where = {"tune(): baseline"};
  EXPECT_EQ(error([&] { Problem p(baseline); }).rfind("tune(): baseline: the baseline ", 0), 0u);
}

TEST_F(ProblemTest, NoParameters) {
  std::vector<std::pair<int, std::string>> replace;
  for (int line = 12; line <= 25; ++line) replace.push_back({line, "#"});
  replace[0] = {12, "  block: [256]"};
  replace[1] = {13, "  grid: [ceil(n * n / 256)]"};
  replace.push_back({3, "  name: transpose"});
  replace.push_back({10, "#"});
  replace.push_back({26, "#"});
  Problem problem(spec(replace));
  EXPECT_EQ(problem.space().size(), 1u);
  EXPECT_EQ(problem.baseline_index(), 0u);
  const Variant v = problem.variant(0);
  EXPECT_EQ(v.kernel_name_expressions, (std::vector<std::string>{"transpose"}));
  EXPECT_EQ(v.launches.at(0).grid, (std::array<uint32_t, 3>{3907, 1, 1}));
  EXPECT_EQ(v.config, "{}");
  EXPECT_DOUBLE_EQ(problem.bytes(0), 0);
}

}  // namespace
}  // namespace gputune
