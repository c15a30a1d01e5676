// What a user sees of a search besides its results: configs pruned by the device's limits
// before compiling, the phases its progress goes through, and compiler warnings kept.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "compile/compiler_log.h"
#include "search/search.h"
#include "spec/spec_loader.h"
#include "support/fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::FakeCompiler;
using testing::FakeRunner;

// 6 x 3 configs, 15 with BX >= 64, of which 1024x2, 1024x4 and 512x4 exceed 1024 threads.
const char* const kSpec = R"(kernel: {source: k.cu, name: k}
problem: {n: 4096}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [BX, BY], grid: [ceil(n / (BX * BY))]}
parameters: {BX: [32, 64, 128, 256, 512, 1024], BY: [1, 2, 4]}
constraints: [BX >= 64]
baseline: {BX: 64, BY: 1}
)";

// A FakeCompiler that keeps the block of every variant it is asked to compile.
class BlockRecordingCompiler : public FakeCompiler {
 public:
  std::vector<int64_t> threads;
  CompiledKernel compile(const CompileRequest& request) override {
    int64_t bx = 1, by = 1;
    for (const std::string& option : request.options) {
      if (option.rfind("-DBX=", 0) == 0) bx = std::stoll(option.substr(5));
      if (option.rfind("-DBY=", 0) == 0) by = std::stoll(option.substr(5));
    }
    threads.push_back(bx * by);
    return FakeCompiler::compile(request);
  }
};

class SearchUxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_search_ux_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    write_kernel("extern \"C\" __global__ void k(float* out, int n) {}\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_kernel(const std::string& source) const {
    std::ofstream(dir_ / "k.cu", std::ios::trunc) << source;
  }
  Problem problem(const std::string& text = kSpec) const {
    return Problem(parse_spec(text, (dir_ / "spec.yaml").string(), {}));
  }

  fs::path dir_;
};

TEST_F(SearchUxTest, OversizeBlocksAreNeitherProposedNorCompiledNorCounted) {
  Problem p = problem();
  ASSERT_EQ(p.space().count_valid(), 12u);
  for (const char* strategy : {"brute_force", "random", "annealing", "genetic", "model"}) {
    SearchOptions options;
    options.strategy = strategy;
    options.budget_evaluations = 100;
    FakeRunner runner;
    BlockRecordingCompiler compiler;
    auto store = open_sqlite_store(":memory:");
    SearchResult result = run_search(p, runner, compiler, *store, options);
    for (int64_t threads : compiler.threads) EXPECT_LE(threads, 1024) << strategy;
    for (const Measurement& m : result.evaluated) {
      EXPECT_TRUE(p.space().valid(m.config_index)) << strategy << " " << m.config;
    }
    EXPECT_LE(result.evaluated.size(), 12u) << strategy;
    EXPECT_EQ(store->measured(result.workload).size(),
              std::min<size_t>(12, result.evaluated.size()))
        << strategy;
  }
}

TEST_F(SearchUxTest, CompileOnlyDoesNotCompileOversizeBlocks) {
  Problem p = problem();
  BlockRecordingCompiler compiler;
  const std::vector<Measurement> compiled = compile_all(p, compiler, "sm_90");
  EXPECT_EQ(compiled.size(), 12u);
  EXPECT_EQ(compiler.threads.size(), 12u);
  for (int64_t threads : compiler.threads) EXPECT_LE(threads, 1024);
}

TEST_F(SearchUxTest, PhasesArriveInOrderThroughTheCallback) {
  Problem p = problem();
  std::vector<SearchPhase> phases;
  std::vector<uint64_t> done_in_measuring;
  ProgressCallback progress = [&](const SearchProgress& s) {
    if (phases.empty() || phases.back() != s.phase) phases.push_back(s.phase);
    EXPECT_EQ(s.total, 12u);
  };
  FakeRunner runner;
  FakeCompiler compiler;
  auto store = open_sqlite_store(":memory:");
  run_search(p, runner, compiler, *store, {}, progress);
  EXPECT_EQ(phases, (std::vector<SearchPhase>{SearchPhase::kBaseline, SearchPhase::kCompiling,
                                              SearchPhase::kMeasuring}));

  phases.clear();
  compile_all(p, compiler, "sm_90", progress);
  EXPECT_EQ(phases, (std::vector<SearchPhase>{SearchPhase::kCompiling}));
}

TEST_F(SearchUxTest, WarningsOfSuccessfulCompilesAreStoredWithTheVariant) {
  write_kernel(
      "extern \"C\" __global__ void k(float* out, int n) {\n"
      "#pragma unroll 0\n"
      "  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = i;\n"
      "}\n");
  Problem p = problem();
  FakeRunner runner;
  auto compiler = make_nvrtc_compiler();
  auto store = open_sqlite_store(":memory:");
  SearchOptions options;
  options.budget_evaluations = 3;
  SearchResult result = run_search(p, runner, *compiler, *store, options);
  EXPECT_NE(result.baseline.compiler_warnings.find("k.cu(2): warning"), std::string::npos)
      << result.baseline.compiler_warnings;
  const std::vector<Measurement> stored = store->measured(result.workload);
  ASSERT_EQ(stored.size(), 3u);
  for (const Measurement& m : stored) {
    EXPECT_EQ(m.status, Status::kOk);
    EXPECT_NE(m.compiler_warnings.find("#pragma unroll 0"), std::string::npos)
        << m.compiler_warnings;
    EXPECT_EQ(m.compiler_warnings.find("ptxas info"), std::string::npos) << m.compiler_warnings;
  }
}

TEST_F(SearchUxTest, AFailedCompileShowsItsFirstErrorLineAndKeepsTheLog) {
  write_kernel(
      "extern \"C\" __global__ void k(float* out, int n) {\n"
      "  int unused = 1;\n"
      "  out[0] = missing_name;\n"
      "}\n");
  Problem p = problem();
  auto compiler = make_nvrtc_compiler();
  const std::vector<Measurement> compiled = compile_all(p, *compiler, "sm_90");
  ASSERT_FALSE(compiled.empty());
  const Measurement& m = compiled.front();
  EXPECT_EQ(m.status, Status::kCompileError);
  EXPECT_EQ(first_error_line(m.message).rfind("k.cu(3): error: identifier \"missing_name\"", 0), 0u)
      << m.message;
  EXPECT_NE(m.message.find("warning"), std::string::npos) << "the whole log: " << m.message;
}

TEST(CompilerLog, WarningsAreTheLogWithoutPtxasResourceReport) {
  const std::string log =
      "k.cu(3): warning #20168-D: the unroll value cannot be zero or negative\n"
      "  #pragma unroll 0\n"
      "          ^\n"
      "\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 22 registers, used 0 barriers\n"
      "ptxas warning : Registers are spilled to local memory in function 'k'\n";
  EXPECT_EQ(compiler_warnings(log),
            "k.cu(3): warning #20168-D: the unroll value cannot be zero or negative\n"
            "  #pragma unroll 0\n"
            "          ^\n"
            "\n"
            "ptxas warning : Registers are spilled to local memory in function 'k'");
  EXPECT_EQ(compiler_warnings("ptxas info    : Used 8 registers\n\n"), "");
}

TEST(CompilerLog, FirstErrorLine) {
  EXPECT_EQ(first_error_line("ptxas info    : Compiling entry function 'error_kernel'\n"
                             "k.cu(2): warning #177-D: variable \"x\" was declared\n"
                             "k.cu(3): error: expected a \";\"\n"
                             "1 error detected in the compilation of \"k.cu\".\n"),
            "k.cu(3): error: expected a \";\"");
  EXPECT_EQ(first_error_line("ptxas error   : Entry function 'k' uses too much shared data\n"),
            "ptxas error   : Entry function 'k' uses too much shared data");
  EXPECT_EQ(first_error_line("\nno kernel named 'k' in the source"),
            "no kernel named 'k' in the source");
}

}  // namespace
}  // namespace gputune
