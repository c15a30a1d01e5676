// A T1 file with ProblemSize and grid divisors (GridDivX, GridDivY) launches the grid BAT's
// runners launch: ceil(ProblemSize / product of the divisors), not GlobalSize; a GlobalSize that
// disagrees at the Defaults is a warning naming both grids. Every T1 file here is the test's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gputune/error.h"
#include "spec/spec_loader.h"
#include "spec/t1_grid.h"
#include "support/text.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::contains;

class T1Grid : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_t1_grid_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out) {\n"
                                    "  out[blockIdx.x] = 1.0f;\n}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `launch`: the KernelSpecification's keys that say the grid.
  std::string write(const std::string& launch) const {
    const fs::path path = dir_ / "k.json";
    std::ofstream(path)
        << "{\n"
           "  \"ConfigurationSpace\": {\"TuningParameters\": [\n"
           "    {\"Name\": \"block_size_x\", \"Values\": \"[32, 64]\", "
           "\"Default\": 64},\n"
           "    {\"Name\": \"TILE\", \"Values\": \"[1, 2, 4]\", \"Default\": 2}]},\n"
           "  \"KernelSpecification\": {\n"
           "    \"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": "
           "\"k.cu\",\n"
           "    \"LocalSize\": {\"X\": \"block_size_x\", \"Y\": \"1\"},\n"
           "    "
        << launch
        << ",\n"
           "    \"Arguments\": [{\"Name\": \"out\", \"Type\": \"float\", "
           "\"Size\": 65536,\n"
           "      \"MemoryType\": \"Vector\", \"AccessType\": \"WriteOnly\"}]}\n"
           "}\n";
    return path.string();
  }

  fs::path dir_;
};

TEST_F(T1Grid, ProblemSizeAndGridDivisorsGiveTheGrid) {
  const Spec spec = load_spec(
      write(R"("ProblemSize": [1000, 48], "GridDivX": ["block_size_x", "TILE"], "GridDivY": [])"));
  const std::vector<ExprText>& grid = spec.launches[0].grid;
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_EQ(grid[0].text, "ceil((ProblemSize_0) / ((block_size_x) * (TILE)))");
  EXPECT_EQ(grid[1].text, "ProblemSize_1");  // an empty list divides by nothing
  const auto values = at_baseline(spec, grid);
  ASSERT_TRUE(values);
  EXPECT_EQ((*values)[0], 8);  // ceil(1000 / (64 * 2))
  EXPECT_EQ((*values)[1], 48);
}

TEST_F(T1Grid, AbsentDivisorsAreTheBlockSizeParameters) {
  const Spec spec = load_spec(write(R"("ProblemSize": [1000, 48], "GridDivY": null)"));
  ASSERT_EQ(spec.launches[0].grid.size(), 2u);
  EXPECT_EQ(spec.launches[0].grid[0].text, "ceil((ProblemSize_0) / ((block_size_x)))");
  EXPECT_EQ(spec.launches[0].grid[1].text, "ProblemSize_1");  // no block_size_y parameter
}

TEST_F(T1Grid, AGlobalSizeThatDisagreesIsAWarningAndTheDivisorsWin) {
  const Spec spec = load_spec(write(R"("ProblemSize": [1000], "GridDivX": ["block_size_x"],
    "GlobalSize": {"X": "ProblemSize[0]"})"));
  ASSERT_EQ(spec.warnings.size(), 1u);  // returned with the spec; each front end shows it
  const std::string& warning = spec.warnings[0];
  EXPECT_TRUE(contains(warning, "k.json:")) << warning;
  EXPECT_TRUE(contains(warning,
                       "GlobalSize gives the grid (1000, 1) at the Defaults, but "
                       "ProblemSize with the grid divisors gives (16)"))
      << warning;
  EXPECT_EQ(spec.launches[0].grid[0].text, "ceil((ProblemSize_0) / ((block_size_x)))");

  const Spec agreeing = load_spec(write(R"("ProblemSize": [1024], "GridDivX": ["block_size_x"],
    "GlobalSize": {"X": "ProblemSize[0] / block_size_x"})"));
  EXPECT_TRUE(agreeing.warnings.empty());  // they agree
}

TEST_F(T1Grid, WithoutDivisorsGlobalSizeIsTheGridAsBefore) {
  const Spec spec = load_spec(write(R"("ProblemSize": [1000], "GlobalSize": {"X": 7})"));
  EXPECT_EQ(spec.launches[0].grid[0].text, "7");
}

TEST_F(T1Grid, ADivisorThatIsNotAListIsAnErrorWhereItIsWritten) {
  try {
    load_spec(write(R"("ProblemSize": [1000], "GridDivX": "block_size_x")"));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "k.json:8:")) << e.what();
    EXPECT_TRUE(contains(e.what(), "GridDivX must be a list")) << e.what();
  }
}

}  // namespace
}  // namespace gputune
