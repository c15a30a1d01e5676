#include "spec/spec_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "gputune/error.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kKernel = R"(
template <int TILE>
__global__ void transpose(float* out, const float* in, int n) {}
)";

// The same spec as YAML and as a Spec built in memory.
const char* const kYaml = R"(kernel:
  source: k.cu
  name: transpose<TILE>
problem: {n: 1024}
arguments:
  - {name: out, type: float32, count: n*n, output: true}
  - {name: in, type: float32, count: n*n}
  - {name: n, type: int32, value: n}
launch:
  block: [TILE, 8]
  grid: [ceil(n / TILE), ceil(n / 8)]
parameters:
  TILE: [16, 32]
transforms:
  block_order: [row, diagonal]
constraints:
  - TILE >= 16
baseline: {TILE: 32}
)";

ExprText expr(const std::string& text) { return {text, {}}; }

Spec in_memory() {
  Spec spec;
  spec.kernel_source = kKernel;
  spec.kernel_name = expr("transpose<TILE>");
  spec.problem = {{"n", expr("1024")}};
  ArgumentSpec out, in, n;
  out.name = "out";
  out.count = expr("n*n");
  out.output = true;
  in.name = "in";
  in.count = expr("n*n");
  n.name = "n";
  n.type = ScalarType::kInt32;
  n.is_buffer = false;
  n.value = expr("n");
  spec.arguments = {out, in, n};
  LaunchSpec launch;
  launch.arguments = {0, 1, 2};
  launch.block = {expr("TILE"), expr("8")};
  launch.grid = {expr("ceil(n / TILE)"), expr("ceil(n / 8)")};
  spec.launches = {launch};
  ParameterSpec tile{"TILE", {int64_t{16}, int64_t{32}}, {}, false};
  ParameterSpec order{"block_order", {Value(std::string("row")), Value(std::string("diagonal"))}};
  spec.parameters = {tile};
  spec.transforms = {order};
  spec.constraints = {expr("TILE >= 16")};
  spec.baseline = {{"TILE", int64_t{32}}};
  return spec;
}

std::string message(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

class SpecCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_spec_check_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << kKernel;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path() const { return (dir_ / "spec.yaml").string(); }

  // The YAML path's message for the spec with `from` replaced by `to`, without its location.
  std::string yaml_message(const std::string& from, const std::string& to) {
    std::string text = kYaml;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const std::string full = message([&] { parse_spec(text, path()); });
    const std::string prefix = path() + ":";
    EXPECT_EQ(full.rfind(prefix, 0), 0u) << full;
    const size_t end = full.find(": ", prefix.size());
    return end == std::string::npos ? full : full.substr(end + 2);
  }

  fs::path dir_;
};

TEST_F(SpecCheckTest, AGoodSpecBuiltInMemoryPassesAndIsCompleted) {
  Spec spec = in_memory();
  spec.transforms[0].is_transform = false;  // completed by the check
  check_spec(spec);
  EXPECT_TRUE(spec.transforms[0].is_transform);
  ASSERT_EQ(spec.baseline.size(), 2u);
  EXPECT_EQ(spec.baseline[0], (std::pair<std::string, Value>{"TILE", int64_t{32}}));
  EXPECT_EQ(spec.baseline[1],
            (std::pair<std::string, Value>{"block_order", Value(std::string("row"))}));
  EXPECT_FALSE(spec.headers_hash.empty());
  EXPECT_EQ(spec.launches[0].kernel_name.text, "transpose<TILE>");
  // What the YAML path gives, field for field where both say the same.
  const Spec loaded = parse_spec(kYaml, path());
  EXPECT_EQ(spec.baseline, loaded.baseline);
  check_spec(spec);  // checking twice changes nothing
  EXPECT_EQ(spec.baseline, loaded.baseline);
}

TEST_F(SpecCheckTest, ABadSpecInMemoryGetsTheYamlMessageWithoutALocation) {
  {
    Spec spec = in_memory();
    spec.launches[0].block[0] = expr("TILEX");
    const std::string got = message([&] { check_spec(spec); });
    EXPECT_EQ(got, yaml_message("block: [TILE, 8]", "block: [TILEX, 8]"));
    EXPECT_NE(got.find("undefined name 'TILEX' in launch block[0] (did you mean 'TILE'?)"),
              std::string::npos)
        << got;
  }
  {
    Spec spec = in_memory();
    spec.transforms[0].values.push_back(Value(std::string("diag")));
    EXPECT_EQ(message([&] { check_spec(spec); }),
              yaml_message("[row, diagonal]", "[row, diagonal, diag]"));
  }
  {
    Spec spec = in_memory();
    spec.parameters[0].values.push_back(int64_t{16});
    EXPECT_EQ(message([&] { check_spec(spec); }), yaml_message("[16, 32]", "[16, 32, 16]"));
  }
  {
    Spec spec = in_memory();
    spec.baseline = {{"TILE", int64_t{48}}};
    EXPECT_EQ(message([&] { check_spec(spec); }), yaml_message("{TILE: 32}", "{TILE: 48}"));
  }
  {
    Spec spec = in_memory();
    spec.parameters[0].name = "n";
    EXPECT_EQ(message([&] { check_spec(spec); }),
              "'n' is already defined; expected names unique across problem, parameters and "
              "transforms");
  }
  {
    Spec spec = in_memory();
    spec.arguments[0].output = false;
    EXPECT_EQ(message([&] { check_spec(spec); }),
              yaml_message("count: n*n, output: true", "count: n*n"));
  }
}

TEST_F(SpecCheckTest, InMemoryOnlyMistakes) {
  Spec spec = in_memory();
  spec.launches[0].arguments = {0, 1, 7};
  EXPECT_NE(message([&] { check_spec(spec); }).find("launch passes argument 7"), std::string::npos);
  spec = in_memory();
  spec.transforms[0].name = "block_ordr";
  EXPECT_EQ(message([&] { check_spec(spec); }),
            "unknown transform 'block_ordr' (did you mean 'block_order'?); expected one of: "
            "block_order, max_registers, fast_math, unroll, thread_merge_x, thread_merge_y, "
            "merge_layout, block_merge_x, block_merge_y, pad_shared, launch_bounds, stage_shared, "
            "fuse, partition_offset, prefetch, vector_width, thread_split_x");
  spec = in_memory();
  spec.launches[0].grid.clear();
  EXPECT_NE(message([&] { check_spec(spec); }).find("launch has no 'grid'"), std::string::npos);
}

TEST_F(SpecCheckTest, AKernelSourceWithoutAFileIsCheckedFromItsText) {
  // As Python's tune() gives it: the source as text, a name for it that is no file.
  Spec spec = in_memory();
  spec.kernel_path = "tune:transpose.cu";
  ASSERT_FALSE(fs::exists(spec.kernel_path));
  check_spec(spec);
  EXPECT_EQ(spec.launches[0].kernel_name.text, "transpose<TILE>");
  spec.kernel_name = expr("transposed<TILE>");
  EXPECT_NE(message([&] { check_spec(spec); })
                .find("kernel 'transposed' is not a __global__ function of tune:transpose.cu "
                      "(did you mean 'transpose'?)"),
            std::string::npos);
}

TEST_F(SpecCheckTest, AKernelWithoutAFolderIncludesFromTheWorkingDirectory) {
  // Where NVRTC finds its quoted includes, so the header's kernels and hash are the module's.
  std::ofstream(dir_ / "h.cuh") << "__global__ void from_header(float* out) {}\n";
  Spec spec = in_memory();
  spec.kernel_path = "tune:transpose.cu";
  spec.kernel_source = std::string("#include \"h.cuh\"\n") + kKernel;
  spec.kernel_name = expr("from_header");
  spec.launches[0].kernel_name = {};
  EXPECT_NE(message([&] { check_spec(spec); }).find("kernel 'from_header' is not a __global__"),
            std::string::npos);
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  Spec beside = spec;
  check_spec(beside);
  fs::current_path(before);
  Spec plain = in_memory();
  check_spec(plain);
  EXPECT_NE(beside.headers_hash, plain.headers_hash);
}

TEST_F(SpecCheckTest, AnOriginWithoutALineNamesWhereTheValueCameFrom) {
  Spec spec = in_memory();
  spec.launches[0].grid[1] = {"ceil(n / X)", {"tune(): grid[1]"}};
  EXPECT_EQ(message([&] { check_spec(spec); })
                .rfind("tune(): grid[1]: undefined name 'X' in launch "
                       "grid[1]",
                       0),
            0u);
  spec = in_memory();
  spec.parameters[0].where = {"tune(): params['TILE']"};
  spec.parameters[0].values.clear();
  EXPECT_EQ(message([&] { check_spec(spec); })
                .rfind("tune(): params['TILE']: parameter 'TILE' "
                       "must be a non-empty list",
                       0),
            0u);
}

TEST_F(SpecCheckTest, AMultiLaunchSpecGetsItsNameOnce) {
  Spec spec = in_memory();
  spec.kernel_source += "__global__ void scale(float* out, int n) {}\n";
  spec.kernel_name = {};
  spec.launches[0].kernel_name = expr("transpose<TILE>");
  LaunchSpec second = spec.launches[0];
  second.kernel_name = expr("scale");
  second.arguments = {0, 2};
  spec.launches.push_back(second);
  check_spec(spec);
  EXPECT_EQ(spec.kernel_name.text, "transpose<TILE> + scale");
  check_spec(spec);
  EXPECT_EQ(spec.kernel_name.text, "transpose<TILE> + scale");
}

}  // namespace
}  // namespace gputune
