// Multi-launch specs: `launches:` reads a sequence of kernel launches, each with its kernel,
// its arguments, its sizes and a condition; a config's variant holds those whose condition holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "gputune/error.h"
#include "process/ipc.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kKernel = R"(
template <int T>
__global__ void step(float* out, const float* in, int n) {}
extern "C" __global__ void fused(float* out, const float* in, int n) {}
)";

// Line numbers matter: errors are expected at them.
const std::vector<std::string> kBase = {
    /* 1 */ "kernel: {source: k.cu}",
    /* 2 */ "problem: {n: 1000}",
    /* 3 */ "arguments:",
    /* 4 */ "  - {name: out, type: float32, count: n, output: true}",
    /* 5 */ "  - {name: in, type: float32, count: n}",
    /* 6 */ "  - {name: tmp, type: float32, count: n, scratch: true}",
    /* 7 */ "  - {name: n, type: int32, value: n}",
    /* 8 */ "launches:",
    /* 9 */ "  - {kernel: 'step<T>', when: FUSED == 0, arguments: [tmp, in, n],",
    /* 10 */ "     block: [T], grid: [ceil(n / T)]}",
    /* 11 */ "  - {kernel: 'step<T>', when: FUSED == 0, arguments: [out, tmp, n],",
    /* 12 */ "     block: [T], grid: [ceil(n / T)]}",
    /* 13 */ "  - {kernel: fused, when: FUSED == 1, arguments: [out, in, n],",
    /* 14 */ "     block: [T], grid: [ceil(n / (2 * T))], shared_bytes: 8 * T}",
    /* 15 */ "parameters:",
    /* 16 */ "  FUSED: [0, 1]",
    /* 17 */ "  T: [32, 64]",
};

class MultiLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_multi_launch_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << kKernel;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path() const { return (dir_ / "spec.yaml").string(); }

  Spec spec(const std::vector<std::pair<int, std::string>>& replace = {}) {
    std::vector<std::string> lines = kBase;
    for (const auto& [line, content] : replace) lines.at(line - 1) = content;
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return parse_spec(text, path());
  }

  // The message of the kSpec error `action` throws, without the "path:" prefix.
  std::string error(const std::function<void()>& action) {
    try {
      action();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec) << e.what();
      const std::string what = e.what();
      return what.rfind(path(), 0) == 0 ? what.substr(path().size() + 1) : what;
    }
    ADD_FAILURE() << "no error";
    return "";
  }

  fs::path dir_;
};

TEST_F(MultiLaunchTest, ReadsEachLaunch) {
  const Spec s = spec();
  ASSERT_EQ(s.launches.size(), 3u);
  EXPECT_EQ(s.kernel_name.text, "step<T> + fused");
  EXPECT_EQ(s.launches[0].kernel_name.text, "step<T>");
  EXPECT_EQ(s.launches[0].arguments, (std::vector<size_t>{2, 1, 3}));
  EXPECT_EQ(s.launches[1].arguments, (std::vector<size_t>{0, 2, 3}));
  ASSERT_TRUE(s.launches[2].when);
  EXPECT_EQ(s.launches[2].when->text, "FUSED == 1");
  EXPECT_TRUE(s.arguments[2].scratch);
  EXPECT_FALSE(s.arguments[2].output);
}

TEST_F(MultiLaunchTest, AVariantHoldsTheLaunchesWhoseConditionHolds) {
  Problem problem(spec());
  const SearchSpace& space = problem.space();

  const Variant unfused = problem.variant(space.encode({0, 1}));  // FUSED=0 T=64
  EXPECT_EQ(unfused.kernel_name_expressions, (std::vector<std::string>{"step<64>"}));
  ASSERT_EQ(unfused.launches.size(), 2u);
  EXPECT_EQ(unfused.launches[0].kernel, 0u);
  EXPECT_EQ(unfused.launches[1].kernel, 0u);
  EXPECT_EQ(unfused.launches[0].arguments, (std::vector<size_t>{2, 1, 3}));
  EXPECT_EQ(unfused.launches[1].arguments, (std::vector<size_t>{0, 2, 3}));
  EXPECT_EQ(unfused.launches[1].grid, (std::array<uint32_t, 3>{16, 1, 1}));  // ceil(1000 / 64)
  EXPECT_EQ(unfused.launches[1].dynamic_shared_bytes, 0u);
  EXPECT_EQ(unfused.scalar_arguments, (std::vector<double>{1000}));

  const Variant fused = problem.variant(space.encode({1, 0}));  // FUSED=1 T=32
  EXPECT_EQ(fused.kernel_name_expressions, (std::vector<std::string>{"fused"}));
  ASSERT_EQ(fused.launches.size(), 1u);
  EXPECT_EQ(fused.launches[0].arguments, (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(fused.launches[0].block, (std::array<uint32_t, 3>{32, 1, 1}));
  EXPECT_EQ(fused.launches[0].grid, (std::array<uint32_t, 3>{16, 1, 1}));  // ceil(1000 / 64)
  EXPECT_EQ(fused.launches[0].dynamic_shared_bytes, 256u);
}

TEST_F(MultiLaunchTest, VariantCrossesProcessesWhole) {
  Problem problem(spec());
  const Variant v = problem.variant(problem.space().encode({0, 0}));
  wire::Writer w;
  wire::put(w, v);
  const std::string bytes = w.take();
  wire::Reader r(bytes);
  Variant back;
  wire::get(r, &back);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(back.kernel_name_expressions, v.kernel_name_expressions);
  ASSERT_EQ(back.launches.size(), 2u);
  for (size_t l = 0; l < 2; ++l) {
    EXPECT_EQ(back.launches[l].arguments, v.launches[l].arguments);
    EXPECT_EQ(back.launches[l].grid, v.launches[l].grid);
    EXPECT_EQ(back.launches[l].block, v.launches[l].block);
  }
  // A count that claims more than the payload holds fails, rather than allocating it.
  std::string damaged = bytes.substr(0, bytes.size() / 2);
  wire::Reader short_reader(damaged);
  Variant lost;
  EXPECT_THROW(wire::get(short_reader, &lost), Error);
}

TEST_F(MultiLaunchTest, ASingleLaunchSpecIsOneLaunchOfEveryArgument) {
  const Spec s = spec({{1, "kernel: {source: k.cu, name: fused}"},
                       {6, "  - {name: unused, type: float32, count: n}"},
                       {8, "launch:"},
                       {9, "  block: [T]"},
                       {10, "  grid: [n / T]"},
                       {11, "#"},
                       {12, "#"},
                       {13, "#"},
                       {14, "#"}});
  ASSERT_EQ(s.launches.size(), 1u);
  EXPECT_EQ(s.launches[0].kernel_name.text, "fused");
  EXPECT_EQ(s.launches[0].arguments, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_FALSE(s.launches[0].when);
}

TEST_F(MultiLaunchTest, ALaunchWithoutAKernelTakesTheSpecsKernel) {
  const Spec s = spec({{1, "kernel: {source: k.cu, name: fused}"},
                       {9, "  - {when: FUSED == 0, arguments: [tmp, in, n],"}});
  EXPECT_EQ(s.kernel_name.text, "fused");
  EXPECT_EQ(s.launches[0].kernel_name.text, "fused");
  EXPECT_NE(error([&] {
              spec({{9, "  - {when: FUSED == 0, arguments: [tmp, in, n],"}});
            }).find("9:5: launch 1 has no 'kernel' and the spec's kernel has no name"),
            std::string::npos);
}

TEST_F(MultiLaunchTest, KernelsMayComeFromHeadersTheSourceIncludes) {
  fs::create_directories(dir_ / "lib");
  std::ofstream(dir_ / "lib" / "step.cuh") << "#include \"more.cuh\"\n"
                                           << "__global__ void from_header(float* a) {}\n";
  std::ofstream(dir_ / "lib" / "more.cuh") << "__global__ void from_nested(float* a) {}\n";
  std::ofstream(dir_ / "k.cu") << "#include \"lib/step.cuh\"\n" << kKernel;
  const Spec s =
      spec({{13, "  - {kernel: from_nested, when: FUSED == 1, arguments: [out],"},
            {11, "  - {kernel: from_header, when: FUSED == 0, arguments: [out, tmp, n],"}});
  EXPECT_EQ(s.kernel_name.text, "step<T> + from_header + from_nested");
  // A header's edit changes what modules are compiled from, not the kernel's identity.
  std::ofstream(dir_ / "lib" / "more.cuh", std::ios::app) << "// edited\n";
  const Spec edited =
      spec({{13, "  - {kernel: from_nested, when: FUSED == 1, arguments: [out],"},
            {11, "  - {kernel: from_header, when: FUSED == 0, arguments: [out, tmp, n],"}});
  EXPECT_NE(edited.headers_hash, s.headers_hash);
  EXPECT_EQ(edited.source_hash(), s.source_hash());
}

TEST_F(MultiLaunchTest, ErrorsSayWhereAndWhat) {
  EXPECT_EQ(error([&] {
              spec({{9, "  - {kernel: 'step<T>', when: FUSED == 0, arguments: [tpm, in, n],"}});
            }),
            "9:55: launch 1 passes 'tpm', which is not an argument (did you mean 'tmp'?); "
            "expected one of: out, in, tmp, n");
  EXPECT_EQ(error([&] {
              spec({{13, "  - {kernel: fussed, when: FUSED == 1, arguments: [out, in, n],"}});
            }),
            "13:14: kernel 'fussed' is not a __global__ function of k.cu (did you mean "
            "'fused'?); expected one of: step, fused");
  const std::string undefined = error([&] {
    spec({{13, "  - {kernel: fused, when: FUSD == 1, arguments: [out, in, n],"}});
  });
  EXPECT_NE(undefined.find("13:27: undefined name 'FUSD' in launch 3 when (did you mean 'FUSED'?)"),
            std::string::npos)
      << undefined;
  EXPECT_EQ(error([&] {
              spec({{7,
                     "  - {name: n, type: int32, value: n}\n  - {name: extra, type: int32, "
                     "value: 2}"}});
            }),
            "8:5: argument 'extra' is passed to no launch; expected every argument in some "
            "launch's arguments");
  EXPECT_NE(error([&] {
              spec({{6,
                     "  - {name: tmp, type: float32, count: n, scratch: true, "
                     "output: true}"}});
            }).find("is both an output and scratch"),
            std::string::npos);
  EXPECT_NE(error([&] {
              spec({{6,
                     "  - {name: tmp, type: float32, count: n, scratch: true, "
                     "fill: zeros}"}});
            }).find("'tmp' is scratch, which gets no fill"),
            std::string::npos);
  EXPECT_NE(error([&] {
              spec({{15, "launch: {block: [1], grid: [1]}"},
                    {16, "parameters:"},
                    {17, "  FUSED: [0, 1]\n  T: [32, 64]"}});
            }).find("the spec has both 'launch' and 'launches'"),
            std::string::npos);
}

TEST_F(MultiLaunchTest, AConfigThatLaunchesNothingIsASpecError) {
  Problem problem(spec({{16, "  FUSED: [0, 1, 2]"}}));
  const std::string message = error([&] { problem.variant(problem.space().encode({2, 0})); });
  EXPECT_NE(message.find("8:1: no launch's condition (when) holds for config FUSED=2 T=32"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace gputune
