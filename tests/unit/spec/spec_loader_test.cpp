#include "spec/spec_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

Value sym(const char* text) { return Value(std::string(text)); }

const char* const kKernel = R"(
template <int TILE, int PAD>
__global__ void transpose(float* out, const float* in, int n) {}

extern "C" __global__ void __launch_bounds__(256) copy(float* out, const float* in) {}
)";

// Line numbers matter: the tests below replace whole lines and expect errors at them.
const std::vector<std::string> kBase = {
    /* 1 */ "kernel:",
    /* 2 */ "  source: ../kernels/k.cu",
    /* 3 */ "  name: transpose<TILE, PAD>",
    /* 4 */ "problem: {n: 1024, m: n / 2}",
    /* 5 */ "arguments:",
    /* 6 */ "  - {name: out, type: float32, count: n*n, output: true}",
    /* 7 */ "  - {name: in, type: float32, count: n*n, fill: random, seed: 7, range: [-1, 1]}",
    /* 8 */ "  - {name: n, type: int32, value: n}",
    /* 9 */ "launch:",
    /* 10 */ "  block: [TILE, TILE / MERGE]",
    /* 11 */ "  grid: [ceil(n / TILE), ceil(n / TILE)]",
    /* 12 */ "parameters:",
    /* 13 */ "  TILE: [16, 32, 64]",
    /* 14 */ "  PAD: [0, 1]",
    /* 15 */ "  MERGE: [1, 2, 4, 8]",
    /* 16 */ "transforms:",
    /* 17 */ "  block_order: [row, diagonal]",
    /* 18 */ "constraints:",
    /* 19 */ "  - TILE % MERGE == 0",
    /* 20 */ "baseline: {TILE: 32, PAD: 0}",
};

class SpecLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_spec_loader_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_ / "kernels");
    fs::create_directories(dir_ / "specs");
    std::ofstream(dir_ / "kernels" / "k.cu") << kKernel;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path() const { return (dir_ / "specs" / "spec.yaml").string(); }

  static std::string text(std::vector<std::string> lines,
                          const std::vector<std::pair<int, std::string>>& replace = {}) {
    for (const auto& [line, content] : replace) lines.at(line - 1) = content;
    std::string out;
    for (const auto& line : lines) out += line + "\n";
    return out;
  }
  static std::string base(const std::vector<std::pair<int, std::string>>& replace = {}) {
    return text(kBase, replace);
  }

  Spec parse(const std::string& spec_text, const Overrides& overrides = {}) {
    return parse_spec(spec_text, path(), overrides);
  }

  // The message of the error that parsing gives, checked to be of `code`.
  std::string error(const std::string& spec_text, const Overrides& overrides = {},
                    ErrorCode code = ErrorCode::kSpec) {
    try {
      parse(spec_text, overrides);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a gputune::Error: " << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << spec_text;
    return "";
  }

  // Asserts the error starts with path:line:column and contains `phrase`.
  void expect_error(const std::string& spec_text, const std::string& line_column,
                    const std::string& phrase) {
    const std::string message = error(spec_text);
    const std::string prefix = path() + ":" + line_column + ": ";
    EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
    EXPECT_NE(message.find(phrase), std::string::npos) << "'" << phrase << "' not in: " << message;
    EXPECT_EQ(message.find("yaml-cpp"), std::string::npos) << message;
  }

  fs::path dir_;
};

TEST_F(SpecLoaderTest, ParsesTheWholeSpec) {
  Spec spec = parse(base());
  EXPECT_EQ(spec.path, path());
  EXPECT_EQ(spec.text, base());
  EXPECT_EQ(fs::path(spec.kernel_path), (dir_ / "kernels" / "k.cu").lexically_normal());
  EXPECT_EQ(spec.kernel_source, kKernel);
  EXPECT_EQ(spec.kernel_name.text, "transpose<TILE, PAD>");
  EXPECT_EQ(spec.kernel_name.where.str(), path() + ":3:9");
  EXPECT_TRUE(spec.parameters_as_macros);
  ASSERT_EQ(spec.problem.size(), 2u);
  EXPECT_EQ(spec.problem[0].first, "n");
  EXPECT_EQ(spec.problem[0].second.text, "1024");
  EXPECT_EQ(spec.problem[1].first, "m");
  EXPECT_EQ(spec.problem[1].second.text, "n / 2");
  EXPECT_EQ(spec.problem[1].second.where.str(), path() + ":4:23");
  ASSERT_EQ(spec.arguments.size(), 3u);
  EXPECT_TRUE(spec.arguments[0].output);
  EXPECT_TRUE(spec.arguments[0].is_buffer);
  EXPECT_EQ(spec.arguments[0].count.text, "n*n");
  EXPECT_EQ(spec.arguments[1].fill, Fill::kRandom);
  EXPECT_EQ(spec.arguments[1].seed, 7u);
  EXPECT_DOUBLE_EQ(spec.arguments[1].fill_low, -1);
  EXPECT_DOUBLE_EQ(spec.arguments[1].fill_high, 1);
  EXPECT_FALSE(spec.arguments[2].is_buffer);
  EXPECT_EQ(spec.arguments[2].type, ScalarType::kInt32);
  EXPECT_EQ(spec.arguments[2].value.text, "n");
  ASSERT_EQ(spec.launches.size(), 1u);
  ASSERT_EQ(spec.launches[0].block.size(), 2u);
  EXPECT_EQ(spec.launches[0].block[1].text, "TILE / MERGE");
  EXPECT_EQ(spec.launches[0].block[1].where.str(), path() + ":10:17");
  ASSERT_EQ(spec.parameters.size(), 3u);
  EXPECT_EQ(spec.parameters[0].name, "TILE");
  EXPECT_EQ(spec.parameters[0].values, (std::vector<Value>{int64_t{16}, int64_t{32}, int64_t{64}}));
  EXPECT_EQ(spec.parameters[0].where.str(), path() + ":13:3");
  ASSERT_EQ(spec.transforms.size(), 1u);
  EXPECT_TRUE(spec.transforms[0].is_transform);
  EXPECT_EQ(spec.transforms[0].values, (std::vector<Value>{sym("row"), sym("diagonal")}));
  ASSERT_EQ(spec.constraints.size(), 1u);
  EXPECT_EQ(spec.constraints_where.str(), path() + ":18:1");
  EXPECT_EQ(spec.baseline_where.str(), path() + ":20:1");
  ASSERT_EQ(spec.baseline.size(), 4u);
  EXPECT_EQ(spec.baseline[0], (std::pair<std::string, Value>{"TILE", int64_t{32}}));
  EXPECT_EQ(spec.baseline[2], (std::pair<std::string, Value>{"MERGE", int64_t{1}}));
  EXPECT_EQ(spec.baseline[3], (std::pair<std::string, Value>{"block_order", sym("row")}));
}

TEST_F(SpecLoaderTest, OptionalSections) {
  std::vector<std::string> lines = kBase;
  lines[0] = "description: a transpose\nkernel:";
  lines.push_back("check: {rtol: 1e-3, atol: 0}");
  lines.push_back("metrics: {bytes: 2 * 4 * n * n, flops: n * TILE}");
  lines.push_back("search: {strategy: random, budget: 10m, seed: 3}");
  lines[2] += "\n  options: [--extra-device-vectorization]\n  macros: false";
  lines[9] += "\n  shared_bytes: TILE * (TILE + PAD) * 4";
  Spec spec = parse(text(lines));
  EXPECT_EQ(spec.description, "a transpose");
  EXPECT_DOUBLE_EQ(spec.rtol, 1e-3);
  EXPECT_DOUBLE_EQ(spec.atol, 0);
  ASSERT_TRUE(spec.bytes && spec.flops);
  EXPECT_EQ(spec.bytes->text, "2 * 4 * n * n");
  EXPECT_EQ(spec.search.strategy, "random");
  EXPECT_DOUBLE_EQ(spec.search.budget_seconds, 600);
  EXPECT_EQ(spec.search.budget_evaluations, 0);
  EXPECT_EQ(spec.search.seed, 3u);
  EXPECT_EQ(spec.compile_options, (std::vector<std::string>{"--extra-device-vectorization"}));
  EXPECT_FALSE(spec.parameters_as_macros);
  ASSERT_TRUE(spec.launches[0].dynamic_shared_bytes);

  lines.back() = "search: {budget: 250}";
  spec = parse(text(lines));
  EXPECT_EQ(spec.search.budget_evaluations, 250);
  EXPECT_EQ(spec.search.strategy, "brute_force");
}

TEST_F(SpecLoaderTest, ValueKinds) {
  Spec spec = parse(base({{14, "  PAD: [0, 1.5, wide, \"7\", true]"}}));
  EXPECT_EQ(spec.parameters[1].values,
            (std::vector<Value>{int64_t{0}, 1.5, sym("wide"), sym("7"), int64_t{1}}));
}

TEST_F(SpecLoaderTest, SetOverridesAProblemValue) {
  Spec spec = parse(base(), {{"n", "4096"}});
  EXPECT_EQ(spec.problem[0].second.text, "4096");
  EXPECT_EQ(spec.problem[0].second.where.str(), path() + ":4:14");
  EXPECT_EQ(spec.problem[1].second.text, "n / 2");
  spec = parse(base(), {{"m", "n / 4"}});
  EXPECT_EQ(spec.problem[1].second.text, "n / 4");
}

TEST_F(SpecLoaderTest, SetOfAnUnknownNameIsAUsageError) {
  const std::string message = error(base(), {{"N", "4096"}}, ErrorCode::kUsage);
  EXPECT_NE(message.find("'N' is not a problem value"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'n'"), std::string::npos) << message;
  // A parameter is not a problem value either.
  EXPECT_NE(error(base(), {{"TILE", "8"}}, ErrorCode::kUsage).find("not a problem value"),
            std::string::npos);
}

TEST_F(SpecLoaderTest, SetWithABadExpressionPointsAtTheSpecEntry) {
  const std::string message = error(base(), {{"m", "n +"}});
  EXPECT_EQ(message.substr(0, path().size() + 6), path() + ":4:23:") << message;
  EXPECT_NE(message.find("--set"), std::string::npos) << message;
}

TEST_F(SpecLoaderTest, YamlSyntaxError) {
  expect_error(base({{4, "problem: {n: 1024, m: n / 2"}}), "5:10", "invalid YAML");
  expect_error(base({{14, "  PAD: [0, 1]]"}}), "14:14", "invalid YAML");
}

TEST_F(SpecLoaderTest, UnknownKeys) {
  expect_error(base({{9, "lanch:"}}), "9:1",
               "unknown key 'lanch' in the spec (did you mean 'launch'?)");
  expect_error(base({{2, "  sorce: ../kernels/k.cu"}}), "2:3",
               "unknown key 'sorce' in kernel (did you mean 'source'?)");
  expect_error(base({{6, "  - {name: out, type: float32, count: n*n, outptu: true}"}}), "6:44",
               "unknown key 'outptu' in an argument (did you mean 'output'?)");
  expect_error(base({{17, "  block_ordr: [row, diagonal]"}}), "17:3",
               "unknown transform 'block_ordr' (did you mean 'block_order'?)");
  expect_error(base({{11, "  grid: [1]\n  zzz: 1"}}), "12:3", "unknown key 'zzz' in launch;");
}

TEST_F(SpecLoaderTest, DuplicateKey) {
  expect_error(base({{11, "  grid: [1]\n  grid: [2]"}}), "12:3", "duplicate key 'grid'");
}

TEST_F(SpecLoaderTest, WrongTypes) {
  expect_error(base({{13, "  TILE: {a: 1}"}}), "13:9", "must be a non-empty list of values");
  expect_error(base({{13, "  TILE: 16"}}), "13:9", "must be a non-empty list of values");
  expect_error(base({{5, "arguments: {out: 1}"}, {6, "#"}, {7, "#"}, {8, "#"}}), "5:12",
               "arguments must be a list");
  expect_error(base({{20, "baseline: {TILE: 32, PAD: 0}\ncheck: {rtol: abc}"}}), "21:15",
               "check rtol must be a number, got 'abc'");
  expect_error(base({{11, "  grid: {x: 1}"}}), "11:9", "launch grid must be a list of 1 to 3");
  expect_error(base({{11, "  grid: [1, 2, 3, 4]"}}), "11:9", "got 4 items");
  expect_error(base({{6, "  - {name: out, type: float32, count: [n], output: true}"}}), "6:39",
               "count must be an expression");
  expect_error(base({{7, "  - {name: in, type: float32, count: n*n, seed: -x}"}}), "7:49",
               "seed must be an integer");
  expect_error(base({{8, "  - {name: n, type: int33, value: n}"}}), "8:21",
               "unknown type 'int33' for argument 'n' (did you mean 'int32'?)");
}

TEST_F(SpecLoaderTest, ExpressionThatDoesNotParse) {
  expect_error(base({{11, "  grid: [ceil(n / TILE), n +* 2]"}}), "11:29", "expected an operand");
  // A quoted scalar starts one column later than its text.
  expect_error(base({{11, "  grid: [ceil(n / TILE), \"n +* 2\"]"}}), "11:30",
               "expected an operand");
  expect_error(base({{19, "  - TILE % MERGE =="}}), "19:20", "cannot parse constraint 1");
}

TEST_F(SpecLoaderTest, RestrictionsAsOtherTunersWriteThem) {
  Spec spec = parse(base({{19, "  - TILE // MERGE >= 4 and (PAD in [0] or not TILE == 64)"}}));
  ASSERT_EQ(spec.constraints.size(), 1u);
  expect_error(base({{19, "  - TILE = 32 or MERGE == 1"}}), "19:10",
               "cannot parse constraint 1 'TILE = 32 or MERGE == 1': '=' is not an operator "
               "here: write '==' to compare");
  expect_error(base({{19, "  - TILE in 32"}}), "19:10", "'in' needs a list after it");
  const std::string message = error(base({{19, "  - TILE == 16 or or MERGE == 1"}}));
  EXPECT_NE(message.find(":19:19: cannot parse constraint 1"), std::string::npos) << message;
  EXPECT_NE(message.find("unexpected operator 'or'"), std::string::npos) << message;
  EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
}

TEST_F(SpecLoaderTest, UndefinedName) {
  expect_error(base({{10, "  block: [TILE, TILE / MERGEY]"}}), "10:24",
               "undefined name 'MERGEY' in launch block[1] (did you mean 'MERGE'?)");
  expect_error(base({{4, "problem: {n: 1024, m: k / 2}"}}), "4:23", "undefined name 'k'");
  expect_error(base({{4, "problem: {m: n / 2, n: 1024}"}}), "4:14", "'n' is defined later");
  expect_error(base({{6, "  - {name: out, type: float32, count: TILE * n, output: true}"}}), "6:39",
               "'TILE' is a parameter; argument 'out' count may use problem values only");
  expect_error(base({{19, "  - block_order == 1"}}), "19:5", "'block_order' has non-numeric");
}

TEST_F(SpecLoaderTest, MissingKernelFile) {
  expect_error(base({{2, "  source: ../kernels/nope.cu"}}), "2:11",
               "cannot read kernel source '../kernels/nope.cu'");
}

TEST_F(SpecLoaderTest, KernelNameTheSourceDoesNotDefine) {
  expect_error(base({{3, "  name: transpose2<TILE, PAD>"}}), "3:9",
               "kernel 'transpose2' is not a __global__ function");
  // The attribute between __global__ and the name is skipped.
  Spec spec = parse(base({{3, "  name: copy"}}));
  EXPECT_EQ(spec.kernel_name.text, "copy");
  expect_error(base({{3, "  name: __launch_bounds__"}}), "3:9", "is not a __global__ function");
  expect_error(base({{3, "  name: transpose<TILE, PAD"}}), "3:9", "unclosed '<'");
}

TEST_F(SpecLoaderTest, BaselineOutsideTheValues) {
  expect_error(base({{20, "baseline: {TILE: 48, PAD: 0}"}}), "20:18",
               "baseline TILE = 48 is not among its values; expected one of: 16, 32, 64");
  expect_error(base({{20, "baseline: {TILES: 32}"}}), "20:12",
               "baseline names 'TILES', which is not a parameter or transform (did you mean "
               "'TILE'?)");
  expect_error(base({{20, "baseline: {block_order: column}"}}), "20:25", "not among its values");
  // A real written as an integer still matches.
  EXPECT_EQ(parse(base({{20, "baseline: {TILE: 64.0}"}})).baseline[0].second, Value(int64_t{64}));
}

TEST_F(SpecLoaderTest, ArgumentRules) {
  expect_error(base({{8, "  - {name: n, type: int32, value: n, count: 1}"}}), "8:5",
               "has both count and value");
  expect_error(base({{8, "  - {name: n, type: int32}"}}), "8:5", "has neither count nor value");
  expect_error(base({{6, "  - {name: out, type: float32, count: n*n}"}}), "6:3",
               "no argument is an output");
  // Outputs take a fill since issue 12 (initialised outputs); scratch buffers still do not.
  EXPECT_TRUE(
      parse(base({{6, "  - {name: out, type: float32, count: n*n, output: true, fill: iota}"}}))
          .arguments[0]
          .initialised);
  expect_error(base({{6, "  - {name: out, type: float32, count: n*n, scratch: true, fill: iota}"}}),
               "6:59", "is scratch, which gets no fill");
  expect_error(base({{8, "  - {name: n, type: int32, value: n, output: true}"}}), "8:46",
               "is a scalar and cannot be an output");
  expect_error(base({{7, "  - {name: in, type: float32, count: n*n, fill: constant}"}}), "7:49",
               "no fill_value");
  expect_error(base({{7, "  - {name: in, type: float32, count: n*n, fill: ones}"}}), "7:49",
               "unknown fill 'ones'");
  expect_error(base({{7, "  - {name: in, type: float32, count: n*n, range: [1, 0]}"}}), "7:50",
               "range is empty");
  expect_error(base({{7, "  - {name: out, type: float32, count: n*n}"}}), "7:12",
               "argument 'out' is listed twice");
  Spec spec = parse(base({{7,
                           "  - {name: in, type: float64, count: n, fill: constant, "
                           "fill_value: 2.5}"}}));
  EXPECT_EQ(spec.arguments[1].fill, Fill::kConstant);
  EXPECT_DOUBLE_EQ(spec.arguments[1].fill_value, 2.5);
}

TEST_F(SpecLoaderTest, NamesAndTransforms) {
  expect_error(base({{14, "  n: [0, 1]"}}), "14:3", "'n' is already defined at");
  expect_error(base({{14, "  2PAD: [0, 1]"}}), "14:3", "is not an identifier");
  expect_error(base({{14, "  min: [0, 1]"}}), "14:3", "is the name of a function");
  expect_error(base({{17, "  block_order: [row, diag]"}}), "17:22", "unknown block order 'diag'");
  expect_error(base({{17, "  max_registers: [0, -4]"}}), "17:22", "max_registers value -4");
  expect_error(base({{17, "  fast_math: [0, 2]"}}), "17:18", "fast_math value 2 is not 0 or 1");
  expect_error(base({{13, "  TILE: [16, 32, 16]"}}), "13:18", "lists 16 twice");
}

TEST_F(SpecLoaderTest, MissingSectionsAndBadSearch) {
  std::vector<std::string> lines = kBase;
  lines.resize(8);  // no launch, parameters, ...
  expect_error(text(lines), "1:1", "the spec has no 'launch'");
  expect_error("", "1:1", "the spec is empty");
  expect_error("- a\n- b\n", "1:1", "the spec must be a map");
  expect_error(base({{20, "search: {budget: 10 minutes}"}}), "20:18",
               "is neither a count nor a time");
  expect_error(base({{3, "  nam: transpose"}}), "3:3", "unknown key 'nam' in kernel");
}

TEST(LoadSpec, MissingFileIsAnIoError) {
  try {
    load_spec("/nonexistent/dir/spec.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/spec.yaml"), std::string::npos);
  }
}

TEST_F(SpecLoaderTest, RemediesMapParametersAndTransforms) {
  std::string spec_text =
      base() + "remedies:\n  padding: PAD\n  thread_parallelism: [TILE, MERGE]\n";
  const Spec spec = parse(spec_text);
  ASSERT_EQ(spec.remedies.size(), 2u);
  EXPECT_EQ(spec.remedies[0].first, "padding");
  EXPECT_EQ(spec.remedies[0].second, std::vector<std::string>{"PAD"});
  EXPECT_EQ(spec.remedies[1].second, (std::vector<std::string>{"TILE", "MERGE"}));
}

TEST_F(SpecLoaderTest, RemedyKnobsMayCarryADirection) {
  const Spec spec =
      parse(base() + "remedies:\n  padding: [+PAD]\n  thread_parallelism: [-TILE, MERGE]\n");
  ASSERT_EQ(spec.remedies.size(), 2u);
  EXPECT_EQ(spec.remedies[1].second, (std::vector<std::string>{"-TILE", "MERGE"}));
  // The sign is not part of the name: a signed unknown parameter is named without it.
  expect_error(base() + "remedies:\n  padding: [+PADD]\n", "22:3",
               "remedy 'padding' names 'PADD', which is not a parameter or transform");
}

TEST_F(SpecLoaderTest, ASymbolicKnobHasNoDirection) {
  expect_error(base() + "remedies:\n  block_order: [+block_order]\n", "22:3",
               "'block_order' has values that are not numbers, so it has no larger or smaller");
  EXPECT_NO_THROW(parse(base() + "remedies:\n  block_order: [block_order]\n"));
}

TEST_F(SpecLoaderTest, AnUnknownRemedyIsNamedWithTheKnownOnes) {
  expect_error(base() + "remedies:\n  paddin: [PAD]\n", "22:3",
               "unknown remedy 'paddin' under remedies (did you mean 'padding'?)");
}

TEST_F(SpecLoaderTest, ARemedyMustNameAParameter) {
  expect_error(base() + "remedies:\n  padding: [PADD]\n", "22:3",
               "remedy 'padding' names 'PADD', which is not a parameter or transform");
}

// A byte that is not UTF-8 reached JSON (a stored config, the space's hash) and ended a command
// as an internal error (nlohmann's type_error 316); found by the spec fuzz target.
TEST_F(SpecLoaderTest, TextThatIsNotUtf8IsTheSpecsError) {
  expect_error(base({{15, "  MERGE: [1\x97, 2, 4, 8]"}}), "15:12", "byte 0x97 is not UTF-8 text");
  expect_error("\xC0\xAF: 1\n", "1:1", "byte 0xC0");  // an overlong '/'
  EXPECT_NO_THROW(parse(base() + "description: \"caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x9A\x80\"\n"));
}

}  // namespace
}  // namespace gputune
