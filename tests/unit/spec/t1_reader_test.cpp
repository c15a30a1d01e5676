#include "spec/t1_reader.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>
#include <sstream>

#include "gputune/error.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "spec/t1_json_locations.h"
#include "spec/t1_values.h"
#include "test_paths.h"

namespace gputune {
namespace {

std::string fixture_path(const std::string& name = "scaled_sum") {
  return test::source_dir() + "/tests/formats/" + name + ".json";
}

std::string fixture_text(const std::string& name = "scaled_sum") {
  std::ifstream in(fixture_path(name));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text, const std::string& name = "scaled_sum") {
  try {
    parse_t1_spec(text, fixture_path(name));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<int64_t> integers(const std::vector<Value>& values) {
  std::vector<int64_t> out;
  for (const Value& v : values) out.push_back(static_cast<int64_t>(v.as_number()));
  return out;
}

TEST(T1Values, PythonListForms) {
  EXPECT_EQ(integers(t1_values("[16, 32, 64]", true)), (std::vector<int64_t>{16, 32, 64}));
  EXPECT_EQ(integers(t1_values("list(range(32, 128+1, 32))", true)),
            (std::vector<int64_t>{32, 64, 96, 128}));
  EXPECT_EQ(integers(t1_values("[1] + [2*i for i in range(1,4)]", true)),
            (std::vector<int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(integers(t1_values("[True, False]", true)), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(integers(t1_values("range(3)", true)), (std::vector<int64_t>{0, 1, 2}));
  const std::vector<Value> names = t1_values("['row', \"col\"]", true);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].as_symbol(), "row");
  EXPECT_EQ(names[1].as_symbol(), "col");
  const std::vector<Value> reals = t1_values("[0.5, 1]", false);
  EXPECT_FALSE(reals[1].is_integer());
  EXPECT_THROW(t1_values("{1, 2}", true), T1ValuesError);
  EXPECT_THROW(t1_values("[]", true), T1ValuesError);
  EXPECT_THROW(t1_values("range(1, 5, 0)", true), T1ValuesError);
}

TEST(T1JsonLocations, PointsAtKeysAndArrayElements) {
  const std::string text = "{\n  \"a\": {\"b\": [1,\n    {\"c\": 2}]},\n  \"d\": \"x\"\n}\n";
  JsonLocations where(text, "f.json");
  EXPECT_EQ(where.at("/a").str(), "f.json:2:3");
  EXPECT_EQ(where.at("/a/b").str(), "f.json:2:9");
  EXPECT_EQ(where.at("/a/b/0").str(), "f.json:2:15");
  EXPECT_EQ(where.at("/a/b/1").str(), "f.json:3:5");
  EXPECT_EQ(where.at("/a/b/1/c").str(), "f.json:3:6");
  EXPECT_EQ(where.at("/d").str(), "f.json:4:3");
  EXPECT_EQ(where.at("/d/missing").str(), "f.json:4:3");  // the nearest ancestor
}

TEST(T1Reader, MapsATuningProblemOntoASpec) {
  const Spec spec = load_spec(fixture_path());  // .json goes to the T1 reader
  EXPECT_EQ(spec.kernel_name.text, "scaled_sum");
  EXPECT_EQ(spec.description, "scaled_sum");
  EXPECT_TRUE(spec.parameters_as_macros);
  EXPECT_EQ(spec.compile_options, (std::vector<std::string>{"-std=c++17"}));
  ASSERT_EQ(spec.problem.size(), 1u);
  EXPECT_EQ(spec.problem[0].first, "ProblemSize_0");
  EXPECT_EQ(spec.problem[0].second.text, "65536");

  ASSERT_EQ(spec.parameters.size(), 2u);
  EXPECT_EQ(spec.parameters[0].name, "block_size_x");
  EXPECT_EQ(integers(spec.parameters[0].values),
            (std::vector<int64_t>{32, 64, 96, 128, 160, 192, 224, 256}));
  EXPECT_EQ(integers(spec.parameters[1].values), (std::vector<int64_t>{1, 2, 4, 8}));
  ASSERT_EQ(spec.baseline.size(), 2u);
  EXPECT_EQ(spec.baseline[0].second.as_number(), 128);
  ASSERT_EQ(spec.constraints.size(), 1u);
  EXPECT_EQ(spec.constraints[0].text, "block_size_x * TILE <= 1024");

  ASSERT_EQ(spec.arguments.size(), 5u);
  EXPECT_TRUE(spec.arguments[0].output);
  EXPECT_FALSE(spec.arguments[0].initialised);  // no fill: poisoned, every element checked
  EXPECT_EQ(spec.arguments[0].count.text, "ProblemSize_0");
  EXPECT_EQ(spec.arguments[1].fill, Fill::kRandom);
  EXPECT_EQ(spec.arguments[1].fill_high, 2.0);
  EXPECT_EQ(spec.arguments[1].seed, 7u);
  EXPECT_EQ(spec.arguments[2].fill, Fill::kConstant);
  EXPECT_EQ(spec.arguments[2].fill_value, 1.5);
  EXPECT_FALSE(spec.arguments[3].is_buffer);
  EXPECT_EQ(spec.arguments[3].type, ScalarType::kFloat32);
  EXPECT_EQ(spec.arguments[4].value.text, "ProblemSize_0");

  ASSERT_EQ(spec.launches.size(), 1u);
  const LaunchSpec& launch = spec.launches[0];
  ASSERT_EQ(launch.block.size(), 1u);
  EXPECT_EQ(launch.block[0].text, "block_size_x");
  // GlobalSizeType OpenCL: GlobalSize counts threads, so the grid divides it by the block.
  EXPECT_EQ(launch.grid[0].text, "ceil((ProblemSize_0 / TILE) / (block_size_x))");
  EXPECT_EQ(spec.search.strategy, "random");
  EXPECT_EQ(spec.search.budget_evaluations, 20);
}

TEST(T1Reader, SetChangesTheProblemSize) {
  const Spec spec = load_spec(fixture_path(), {{"ProblemSize_0", "4096"}});
  EXPECT_EQ(spec.problem[0].second.text, "4096");
  try {
    load_spec(fixture_path(), {{"n", "4096"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ProblemSize_0"), std::string::npos) << e.what();
  }
}

// std::regex recursed once per character of these and overflowed the stack.
TEST(T1Reader, ProblemSizeIndexesOfAnyLength) {
  const std::string spaced =
      replaced(fixture_text(), "\"X\": \"ProblemSize[0] / TILE\"",
               "\"X\": \"ProblemSize" + std::string(30000, ' ') + "[ 0 ] / TILE\"");
  EXPECT_EQ(parse_t1_spec(spaced, fixture_path()).launches[0].grid[0].text,
            "ceil((ProblemSize_0 / TILE) / (block_size_x))");
  const std::string digits =
      error_of(replaced(fixture_text(), "\"X\": \"ProblemSize[0] / TILE\"",
                        "\"X\": \"ProblemSize[" + std::string(30000, '9') + "]\""));
  EXPECT_NE(digits.find("scaled_sum.json:46:"), std::string::npos) << digits.substr(0, 200);
}

TEST(T1Reader, CudaGlobalSizeIsTheGrid) {
  const Spec spec = parse_t1_spec(
      replaced(fixture_text(), "\"GlobalSizeType\": \"OpenCL\"", "\"GlobalSizeType\": \"CUDA\""),
      fixture_path());
  EXPECT_EQ(spec.launches[0].grid[0].text, "ProblemSize_0 / TILE");
}

TEST(T1Reader, UnmappableFeaturesAreRefusedWithWhereAndWhatInstead) {
  const std::string text = fixture_text();
  const std::string local = error_of(
      replaced(text,
               "\"Size\": \"ProblemSize[0]\",\n                \"MemoryType\": \"Vector\",\n"
               "                \"AccessType\": \"ReadOnly\",\n                \"FillType\": "
               "\"Constant\"",
               "\"Size\": \"ProblemSize[0]\",\n                \"MemoryType\": \"Local\",\n"
               "                \"AccessType\": \"ReadOnly\",\n                \"FillType\": "
               "\"Constant\""));
  EXPECT_NE(local.find("scaled_sum.json:73:17: argument 'y' is Local memory"), std::string::npos)
      << local;
  const std::string opencl =
      error_of(replaced(text, "\"Language\": \"CUDA\"", "\"Language\": \"OpenCL\""));
  EXPECT_NE(opencl.find("Language 'OpenCL' is not supported"), std::string::npos) << opencl;
  const std::string half = error_of(replaced(text,
                                             "\"Name\": \"a\",\n                "
                                             "\"Type\": \"float\"",
                                             "\"Name\": \"a\",\n                "
                                             "\"Type\": \"half\""));
  EXPECT_NE(half.find("type 'half'"), std::string::npos) << half;
  const std::string fill =
      error_of(replaced(text, "\"FillType\": \"Constant\"", "\"FillType\": \"Script\""));
  EXPECT_NE(fill.find("FillType Script is refused: gputune never runs code"), std::string::npos)
      << fill;
  const std::string budget =
      error_of(replaced(text, "\"ConfigurationCount\"", "\"ConfigurationFraction\""));
  EXPECT_NE(budget.find("Budget type 'ConfigurationFraction'"), std::string::npos) << budget;
  const std::string values =
      error_of(replaced(text, "\"[1, 2] + list(range(4, 9, 4))\"", "\"{1, 2}\""));
  EXPECT_NE(values.find("scaled_sum.json:18:17: parameter 'TILE' Values"), std::string::npos)
      << values;
  const std::string missing = error_of(replaced(text, "\"KernelSpecification\"", "\"Kernel\""));
  EXPECT_NE(missing.find("no 'KernelSpecification'"), std::string::npos) << missing;
}

TEST(T1Reader, SymbolsAreConstantArguments) {
  const Spec spec = load_spec(fixture_path("weighted_sum"));
  ASSERT_EQ(spec.arguments.size(), 5u);
  const ArgumentSpec& weights = spec.arguments[2];
  EXPECT_TRUE(weights.constant);
  EXPECT_TRUE(weights.is_buffer);
  EXPECT_EQ(weights.constant_symbol(), "weights");
  EXPECT_EQ(weights.count.text, "16");
  EXPECT_EQ(weights.fill, Fill::kRandom);
  EXPECT_EQ(weights.fill_high, 2.0);
  EXPECT_EQ(weights.seed, 5u);
  const ArgumentSpec& bias = spec.arguments[3];  // no Size: one variable
  EXPECT_TRUE(bias.constant);
  EXPECT_EQ(bias.count.text, "1");
  EXPECT_EQ(bias.fill, Fill::kConstant);
  EXPECT_EQ(bias.fill_value, 0.5);
  EXPECT_FALSE(spec.arguments[0].constant);
  EXPECT_FALSE(spec.arguments[4].constant);
}

TEST(T1Reader, ASymbolTheKernelLacksIsTheSpecChecksError) {
  const std::string text = fixture_text("weighted_sum");
  const std::string wrong =
      error_of(replaced(text, "\"Name\": \"weights\"", "\"Name\": \"weight\""), "weighted_sum");
  const size_t at = wrong.find("weighted_sum.json:49:17: ");
  ASSERT_NE(at, std::string::npos) << wrong;
  EXPECT_EQ(wrong.substr(at),
            "weighted_sum.json:49:17: argument 'weight' is constant, but weighted_sum.cu declares "
            "no __constant__ variable 'weight' (did you mean 'weights'?); expected one of: "
            "weights, bias");
  const std::string written =
      error_of(replaced(text,
                        "\"MemoryType\": \"Symbol\",\n                \"AccessType\": "
                        "\"ReadOnly\",\n                \"FillType\": \"Random\"",
                        "\"MemoryType\": \"Symbol\",\n                \"AccessType\": "
                        "\"WriteOnly\",\n                \"FillType\": \"Random\""),
               "weighted_sum");
  EXPECT_NE(written.find("weighted_sum.json:52:17: argument 'weights' is constant and an output"),
            std::string::npos)
      << written;
}

TEST(T1Reader, OutputsWithAFillAreInitialised) {
  const Spec spec = load_spec(fixture_path("weighted_sum"));
  const ArgumentSpec& z = spec.arguments[0];
  EXPECT_TRUE(z.output);
  EXPECT_TRUE(z.initialised);
  EXPECT_EQ(z.fill, Fill::kZeros);

  const Spec random = parse_t1_spec(
      replaced(fixture_text("weighted_sum"),
               "\"WriteOnly\",\n                \"FillType\": \"Constant\",\n"
               "                \"FillValue\": 0.0",
               "\"WriteOnly\",\n                \"FillType\": \"Random\",\n"
               "                \"FillValue\": 4.0,\n                \"RandomSeed\": 9"),
      fixture_path("weighted_sum"));
  EXPECT_TRUE(random.arguments[0].initialised);
  EXPECT_EQ(random.arguments[0].fill, Fill::kRandom);
  EXPECT_EQ(random.arguments[0].fill_high, 4.0);
  EXPECT_EQ(random.arguments[0].seed, 9u);

  const std::string bad =
      error_of(replaced(fixture_text("weighted_sum"),
                        "\"FillType\": \"Constant\",\n                \"FillValue\": 0.0",
                        "\"FillType\": \"BinaryRaw\""),
               "weighted_sum");
  EXPECT_NE(bad.find("argument 'z' FillType BinaryRaw has no DataSource"), std::string::npos)
      << bad;
}

// Published T1 files hold Defaults outside their Values; the tuners that read them ignore
// Default, so the file runs, with a warning, from the spec check's baseline.
TEST(T1Reader, ADefaultOutsideItsValuesIsAWarningNotAnError) {
  const Spec spec = parse_t1_spec(replaced(fixture_text(), "\"Default\": 1\n", "\"Default\": 3\n"),
                                  fixture_path());
  ASSERT_EQ(spec.warnings.size(), 1u);
  const std::string warning = spec.warnings[0];
  EXPECT_NE(warning.find("scaled_sum.json:19:"), std::string::npos) << warning;
  EXPECT_NE(warning.find("'TILE' Default 3 is not among its Values"), std::string::npos) << warning;
  const auto tile = std::find_if(spec.baseline.begin(), spec.baseline.end(),
                                 [](const auto& entry) { return entry.first == "TILE"; });
  ASSERT_NE(tile, spec.baseline.end());
  EXPECT_EQ(tile->second.as_number(), 1);  // the first value
  EXPECT_EQ(error_of(fixture_text()), "");
}

TEST(T1Reader, CheckErrorsPointIntoTheFile) {
  const std::string error = error_of(
      replaced(fixture_text(), "block_size_x * TILE <= 1024", "block_size_x * TYLE <= 1024"));
  EXPECT_NE(error.find("scaled_sum.json:25:"), std::string::npos) << error;
  EXPECT_NE(error.find("did you mean 'TILE'"), std::string::npos) << error;
}

}  // namespace
}  // namespace gputune

namespace gputune {
namespace {

// BAT's hotspot holds Defaults that break its own Conditions; other tuners never run the
// Defaults, so the baseline is the valid config nearest to them, with a warning.
TEST(T1Reader, DefaultsThatBreakAConditionGiveTheNearestValidBaseline) {
  const std::string text = replaced(fixture_text(), "\"block_size_x * TILE <= 1024\"",
                                    "\"block_size_x * TILE >= 1024\"");
  const Problem problem(parse_t1_spec(text, fixture_path()));
  // Defaults block_size_x 128, TILE 1: changing TILE alone, to 8, is the nearest valid.
  EXPECT_EQ(problem.space().describe(problem.baseline_index()), "block_size_x=128 TILE=8");
  const std::string& note = problem.baseline_note();
  EXPECT_NE(note.find("scaled_sum.json:"), std::string::npos) << note;
  EXPECT_NE(note.find("the baseline the Defaults give (block_size_x=128 TILE=1) fails "
                      "constraint 1 (block_size_x * TILE >= 1024); the baseline is the valid "
                      "config nearest to it instead: block_size_x=128 TILE=8"),
            std::string::npos)
      << note;
}

TEST(T1Reader, DefaultsThatKeepTheConditionsAreTheBaselineWithoutANote) {
  const Problem problem(parse_t1_spec(fixture_text(), fixture_path()));
  EXPECT_EQ(problem.space().describe(problem.baseline_index()), "block_size_x=128 TILE=1");
  EXPECT_EQ(problem.baseline_note(), "");
}

// General.Objective and Minimize, as BAT writes them: time minimised is what gputune does; a
// throughput maximised is ranked as time, with a warning saying why; anything else, and a
// direction that contradicts the objective, is refused at the key.
TEST(T1Reader, AnObjectiveIsHonouredOrRefusedWithTheReason) {
  const std::string general = "\"TimeUnit\": \"Milliseconds\"";
  const auto with = [&](const std::string& keys) {
    return replaced(fixture_text(), general, general + ", " + keys);
  };
  EXPECT_TRUE(parse_t1_spec(with(R"("Objective": "time", "Minimize": true)"), fixture_path())
                  .warnings.empty());
  const Spec gflops =
      parse_t1_spec(with(R"("Objective": "GFLOPs", "Minimize": false)"), fixture_path());
  ASSERT_EQ(gflops.warnings.size(), 1u);
  EXPECT_NE(gflops.warnings[0].find("scaled_sum.json:5:"), std::string::npos) << gflops.warnings[0];
  EXPECT_NE(gflops.warnings[0].find("General.Objective 'GFLOPs' (maximised) is honoured by "
                                    "minimising time"),
            std::string::npos)
      << gflops.warnings[0];

  std::string error = error_of(with(R"("Objective": "energy")"));
  EXPECT_NE(error.find("scaled_sum.json:5:"), std::string::npos) << error;
  EXPECT_NE(error.find("General.Objective 'energy' is not something gputune measures"),
            std::string::npos)
      << error;
  error = error_of(with(R"("Objective": "GB/s", "Minimize": true)"));
  EXPECT_NE(error.find("General.Minimize true minimises GB/s, which no tuning wants"),
            std::string::npos)
      << error;
  error = error_of(with(R"("Minimize": false)"));
  EXPECT_NE(error.find("General.Minimize false maximises time"), std::string::npos) << error;
}

// What published files write, read as their own tools read it (bench/t1_suites): an empty
// compiler option is none (KTT's ["" ]), a null SharedMemory is none, and a file without an
// output is timed unchecked with a warning, as BAT's runners time it.
TEST(T1Reader, EmptyOptionsNullSharedMemoryAndNoOutputAreReadAsTheSuitesToolsReadThem) {
  const Spec options = parse_t1_spec(
      replaced(replaced(fixture_text(), R"(["-std=c++17"])", R"(["", "-std=c++17", " "])"),
               R"("Language": "CUDA",)", R"("Language": "CUDA", "SharedMemory": null,)"),
      fixture_path());
  EXPECT_EQ(options.compile_options, std::vector<std::string>{"-std=c++17"});
  ASSERT_EQ(options.launches.size(), 1u);
  EXPECT_FALSE(options.launches[0].dynamic_shared_bytes);
  EXPECT_TRUE(options.check_outputs);

  const Spec unchecked = parse_t1_spec(
      replaced(fixture_text(), R"("AccessType": "WriteOnly")", R"("AccessType": "ReadWrite")"),
      fixture_path());
  EXPECT_FALSE(unchecked.check_outputs);
  ASSERT_EQ(unchecked.warnings.size(), 1u);
  EXPECT_NE(unchecked.warnings[0].find("scaled_sum.json:51:"), std::string::npos)
      << unchecked.warnings[0];
  EXPECT_NE(unchecked.warnings[0].find("no argument is an output (AccessType WriteOnly or "
                                       "\"Output\": 1), so the variants are timed unchecked"),
            std::string::npos)
      << unchecked.warnings[0];
}

}  // namespace
}  // namespace gputune
