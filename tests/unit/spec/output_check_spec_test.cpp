// The spec side of output checks: initialised outputs, check regions, check: none and
// reference files, as the loader reads them and check_spec judges them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "gputune/error.h"
#include "spec/reference_file.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kKernel = R"(
__global__ void stencil(float* x_new, const float* x_old, int nx, int ny) {}
)";

// Line numbers matter: the tests replace whole lines and expect errors at them.
const std::vector<std::string> kBase = {
    /* 1 */ "kernel: {source: k.cu, name: stencil}",
    /* 2 */ "problem: {nx: 64, ny: 32}",
    /* 3 */ "arguments:",
    /* 4 */ "  - {name: x_new, type: float32, count: nx*ny, output: true}",
    /* 5 */ "  - {name: x_old, type: float32, count: nx*ny}",
    /* 6 */ "  - {name: nx, type: int32, value: nx}",
    /* 7 */ "  - {name: ny, type: int32, value: ny}",
    /* 8 */ "launch: {block: [B, 8], grid: [ceil(nx / B), ceil(ny / 8)]}",
    /* 9 */ "parameters: {B: [16, 32]}",
    /* 10 */ "check:",
    /* 11 */ "  rtol: 1e-4",
};

class OutputCheckSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_output_check_spec_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << kKernel;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string text(const std::vector<std::pair<int, std::string>>& replace,
                          const std::vector<std::string>& extra = {}) {
    std::vector<std::string> lines = kBase;
    for (const auto& [line, content] : replace) lines.at(line - 1) = content;
    lines.insert(lines.end(), extra.begin(), extra.end());
    std::string out;
    for (const auto& line : lines) out += line + "\n";
    return out;
  }
  std::string path() const { return (dir_ / "spec.yaml").string(); }
  Spec parse(const std::string& spec_text, const Overrides& overrides = {}) {
    return parse_spec(spec_text, path(), overrides);
  }
  std::string error(const std::string& spec_text) {
    try {
      parse(spec_text);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << spec_text;
    return "";
  }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  // A .npy file (format 1.0) of `values` with dtype `descr`.
  // `gap` goes between the dictionary's entries (numpy writes one space; the format allows a
  // header of 64 KiB).
  static std::string npy(const std::string& descr, const std::string& raw, size_t count,
                         bool fortran = false, const std::string& gap = " ") {
    std::string header = "{'descr': '" + descr + "'," + gap +
                         "'fortran_order': " + (fortran ? "True" : "False") + "," + gap +
                         "'shape': (" + std::to_string(count) + ",), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(header.size() & 0xFF);
    out += static_cast<char>(header.size() >> 8);
    return out + header + raw;
  }
  static std::string floats(const std::vector<float>& values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  }

  fs::path dir_;
};

const ArgumentSpec& argument(const Spec& spec, const std::string& name) {
  for (const ArgumentSpec& a : spec.arguments) {
    if (a.name == name) return a;
  }
  throw std::runtime_error("no argument " + name);
}

TEST_F(OutputCheckSpecTest, ByDefaultOutputsArePoisonedAndCheckedWhole) {
  const Spec spec = parse(text({}));
  EXPECT_TRUE(spec.check_outputs);
  const ArgumentSpec& out = argument(spec, "x_new");
  EXPECT_FALSE(out.initialised);
  EXPECT_FALSE(out.check_region);
  EXPECT_FALSE(out.reference);
  EXPECT_DOUBLE_EQ(spec.rtol, 1e-4);
}

TEST_F(OutputCheckSpecTest, AnOutputWithAFillIsInitialised) {
  const Spec zeros = parse(
      text({{4, "  - {name: x_new, type: float32, count: nx*ny, output: true, fill: zeros}"}}));
  EXPECT_TRUE(argument(zeros, "x_new").initialised);
  EXPECT_EQ(argument(zeros, "x_new").fill, Fill::kZeros);

  const Spec constant =
      parse(text({{4,
                   "  - {name: x_new, type: float32, count: nx*ny, output: true, fill: constant, "
                   "fill_value: -1}"}}));
  EXPECT_TRUE(argument(constant, "x_new").initialised);
  EXPECT_DOUBLE_EQ(argument(constant, "x_new").fill_value, -1);

  const Spec seeded =
      parse(text({{4, "  - {name: x_new, type: float32, count: nx*ny, output: true, seed: 3}"}}));
  EXPECT_TRUE(argument(seeded, "x_new").initialised);
  EXPECT_EQ(argument(seeded, "x_new").fill, Fill::kRandom);
}

TEST_F(OutputCheckSpecTest, ScratchStillGetsNoFill) {
  const std::string message = error(
      text({{5, "  - {name: x_old, type: float32, count: nx*ny, scratch: true, fill: zeros}"}}));
  EXPECT_NE(message.find("spec.yaml:5:"), std::string::npos) << message;
  EXPECT_NE(message.find("is scratch, which gets no fill"), std::string::npos) << message;
}

TEST_F(OutputCheckSpecTest, ARegionIsReadPerOutput) {
  const Spec spec = parse(text(
      {}, {"  region:", "    x_new: {shape: [ny, nx], begin: [1, 1], end: [ny - 1, nx - 1]}"}));
  const ArgumentSpec& out = argument(spec, "x_new");
  ASSERT_TRUE(out.check_region);
  ASSERT_EQ(out.check_region->shape.size(), 2u);
  EXPECT_EQ(out.check_region->shape[0].text, "ny");
  EXPECT_EQ(out.check_region->end[1].text, "nx - 1");
  EXPECT_EQ(out.check_region->where.line, 13);

  const Spec one_d = parse(text({}, {"  region: {x_new: {begin: 0, end: nx}}"}));
  ASSERT_TRUE(argument(one_d, "x_new").check_region);
  EXPECT_TRUE(argument(one_d, "x_new").check_region->shape.empty());
}

TEST_F(OutputCheckSpecTest, RegionErrorsPointAtTheSpec) {
  const std::string not_output = error(text({}, {"  region: {x_old: {begin: 0, end: nx}}"}));
  EXPECT_NE(not_output.find("spec.yaml:12:12: check region names 'x_old', which is not an "
                            "output"),
            std::string::npos)
      << not_output;
  EXPECT_NE(not_output.find("expected one of: x_new"), std::string::npos) << not_output;

  const std::string no_shape =
      error(text({}, {"  region: {x_new: {begin: [1, 1], end: [ny - 1, nx - 1]}}"}));
  EXPECT_NE(no_shape.find("spec.yaml:12:12: check region of 'x_new' has 2 dimensions but no "
                          "shape"),
            std::string::npos)
      << no_shape;

  const std::string mismatch =
      error(text({}, {"  region: {x_new: {shape: [ny, nx], begin: [1], end: [ny - 1, nx]}}"}));
  EXPECT_NE(mismatch.find("expected 1 to 3, the same for each"), std::string::npos) << mismatch;

  const std::string parameter = error(text({}, {"  region: {x_new: {begin: 0, end: B}}"}));
  EXPECT_NE(parameter.find("'B' is a parameter; check region of 'x_new' end[0] may use problem "
                           "values only"),
            std::string::npos)
      << parameter;

  const std::string unknown_key =
      error(text({}, {"  region: {x_new: {begin: 0, end: nx, stop: 3}}"}));
  EXPECT_NE(unknown_key.find("unknown key 'stop' in check region of 'x_new'"), std::string::npos)
      << unknown_key;
}

TEST_F(OutputCheckSpecTest, CheckNoneTimesWithoutCheckingAndNeedsNoOutput) {
  const Spec spec = parse(text({{10, "check: none"}, {11, ""}}));
  EXPECT_FALSE(spec.check_outputs);

  const Spec no_output = parse(
      text({{4, "  - {name: x_new, type: float32, count: nx*ny}"}, {10, "check: none"}, {11, ""}}));
  EXPECT_FALSE(no_output.check_outputs);

  const std::string without = error(text({{4, "  - {name: x_new, type: float32, count: nx*ny}"}}));
  EXPECT_NE(without.find("no argument is an output"), std::string::npos) << without;
  EXPECT_NE(without.find("or check: none"), std::string::npos) << without;

  const std::string other = error(text({{10, "check: off"}, {11, ""}}));
  EXPECT_NE(other.find("spec.yaml:10:8: check must be a map or none, got 'off'"), std::string::npos)
      << other;
}

TEST_F(OutputCheckSpecTest, AReferenceFileIsRawDataOrNpy) {
  const std::vector<float> values = {1.5f, -2, 3};
  write("expected.bin", floats(values));
  write("expected.npy", npy("<f4", floats(values), values.size()));
  for (const char* file : {"expected.bin", "expected.npy"}) {
    const Spec spec = parse(text({}, {std::string("  reference: {x_new: ") + file + "}"}));
    const SharedBytes& reference = argument(spec, "x_new").reference;
    ASSERT_TRUE(reference) << file;
    ASSERT_EQ(reference->size(), values.size() * sizeof(float)) << file;
    EXPECT_EQ(std::memcmp(reference->data(), values.data(), reference->size()), 0) << file;
  }
}

// std::regex recursed once per character of the header and overflowed the stack.
TEST_F(OutputCheckSpecTest, ANpyHeaderOfSixtyKilobytesIsRead) {
  const float value = 2.5f;
  write("long.npy", npy("<f4", floats({value}), 1, false, std::string(30000, ' ')));
  const SharedBytes bytes = read_reference_file((dir_ / "long.npy").string(), ScalarType::kFloat32);
  ASSERT_EQ(bytes->size(), sizeof(float));
  write("long_key.npy",
        npy("<f4", floats({value}), 1, false, " '" + std::string(30000, 'x') + "': 1, "));
  EXPECT_EQ(read_reference_file((dir_ / "long_key.npy").string(), ScalarType::kFloat32)->size(),
            sizeof(float));
}

TEST_F(OutputCheckSpecTest, ABigEndianNpyIsSwapped) {
  const float value = 2.5f;
  std::string raw = floats({value});
  std::reverse(raw.begin(), raw.end());
  write("big.npy", npy(">f4", raw, 1));
  const SharedBytes bytes = read_reference_file((dir_ / "big.npy").string(), ScalarType::kFloat32);
  float got = 0;
  ASSERT_EQ(bytes->size(), sizeof(float));
  std::memcpy(&got, bytes->data(), sizeof(float));
  EXPECT_EQ(got, value);
}

TEST_F(OutputCheckSpecTest, ReferenceFileErrorsSayWhatWasExpected) {
  const std::string missing = error(text({}, {"  reference: {x_new: nowhere.npy}"}));
  EXPECT_NE(missing.find("spec.yaml:12:22: reference of 'x_new': cannot read"), std::string::npos)
      << missing;

  write("doubles.npy", npy("<f8", std::string(16, '\0'), 2));
  const std::string dtype = error(text({}, {"  reference: {x_new: doubles.npy}"}));
  EXPECT_NE(dtype.find("the .npy dtype is '<f8', the output is float32; expected dtype '<f4'"),
            std::string::npos)
      << dtype;

  write("fortran.npy", npy("<f4", std::string(8, '\0'), 2, /*fortran=*/true));
  const std::string order = error(text({}, {"  reference: {x_new: fortran.npy}"}));
  EXPECT_NE(order.find("Fortran order"), std::string::npos) << order;

  write("text.npy", "not numpy");
  const std::string garbage = error(text({}, {"  reference: {x_new: text.npy}"}));
  EXPECT_NE(garbage.find("not a .npy file"), std::string::npos) << garbage;

  const std::string input = error(text({}, {"  reference: {x_old: text.npy}"}));
  EXPECT_NE(input.find("check reference names 'x_old', which is not an output"), std::string::npos)
      << input;
}

TEST_F(OutputCheckSpecTest, ASpecBuiltInMemoryIsJudgedAlike) {
  Spec spec = parse(text({}));
  spec.arguments[1].initialised = true;  // x_old, an input
  try {
    check_spec(spec);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 'x_old' is not an output but has an initial "
                                         "fill"),
              std::string::npos)
        << e.what();
  }

  Spec unchecked = parse(text({}));
  unchecked.check_outputs = false;
  unchecked.arguments[0].check_region = CheckRegionSpec{{}, {{"0", {}}}, {{"nx", {}}}, {}};
  try {
    check_spec(unchecked);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has a check region but the spec says check: none"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gputune
