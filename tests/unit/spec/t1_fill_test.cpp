// A T1 file's fill types as the schema has them: Generator (an expression of the element
// index), BinaryRaw (a file of raw elements beside the T1 file), Script refused (no file ever
// runs code); ReferenceArguments as the expected outputs. BinaryHDF: t1_hdf5_test.cpp.
// Every T1 file here is written by the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "run/host_buffers.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "support/t1_scale.h"
#include "support/text.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::contains;

class T1Fill : public testing::T1Scale {};

TEST_F(T1Fill, AGeneratorFillsEachElementFromItsIndex) {
  const std::string path = write(R"("FillType": "Generator", "DataSource": "i % 3 + 0.25")");
  const Spec spec = load_spec(path);
  const ArgumentSpec& x = spec.arguments[1];
  EXPECT_EQ(x.fill, Fill::kGenerator);
  EXPECT_EQ(x.generator.text, "i % 3 + 0.25");
  EXPECT_EQ(x.generator.where.line, 14);
  const auto bytes = host_fill(x, x.type, 5);
  const float* values = reinterpret_cast<const float*>(bytes.data());
  EXPECT_EQ(values[0], 0.25f);
  EXPECT_EQ(values[4], 1.25f);
}

TEST_F(T1Fill, AGeneratorOfAnythingButTheIndexIsRefusedWhereItIsWritten) {
  std::string error = error_of(write(R"("FillType": "Generator", "DataSource": "j * 2")"));
  EXPECT_TRUE(contains(error, "scale.json:14:")) << error;
  EXPECT_TRUE(contains(error, "undefined name 'j'")) << error;
  EXPECT_TRUE(contains(error, "expected an expression of i")) << error;
  error = error_of(write(R"("FillType": "Generator")"));
  EXPECT_TRUE(contains(error, "scale.json:14:")) << error;
  EXPECT_TRUE(contains(error, "has no DataSource")) << error;
}

TEST_F(T1Fill, BinaryRawReadsAFileBesideTheT1FileAndChecksItsSize) {
  write_floats("x.bin", 1024, 3);
  const std::string path = write(R"("FillType": "BinaryRaw", "DataSource": "x.bin")");
  Problem problem(load_spec(path));
  const ArgumentSpec& x = problem.spec().arguments[1];
  ASSERT_EQ(x.fill, Fill::kData);
  ASSERT_EQ(x.data->size(), 1024 * sizeof(float));
  float third = 0;
  std::memcpy(&third, x.data->data() + 2 * sizeof(float), sizeof third);
  EXPECT_EQ(third, 5.0f);

  write_floats("short.bin", 1000);
  std::string error = error_of(write(R"("FillType": "BinaryRaw", "DataSource": "short.bin")"));
  EXPECT_TRUE(contains(error, "scale.json:12:")) << error;
  EXPECT_TRUE(contains(error,
                       "argument 'x': its data has 4000 bytes, but ProblemSize_0 = 1024 "
                       "float32 elements need 4096"))
      << error;

  std::ofstream(dir_ / "odd.bin") << "abcdef";
  error = error_of(write(R"("FillType": "BinaryRaw", "DataSource": "odd.bin")"));
  EXPECT_TRUE(contains(error, "scale.json:14:")) << error;
  EXPECT_TRUE(contains(error, "not a whole number of float32 elements")) << error;

  error =
      error_of(write(R"("FillType": "BinaryRaw", "DataSource": "missing.bin")"), ErrorCode::kIo);
  EXPECT_TRUE(contains(
      error, "'missing.bin' cannot be read (looked for " + (dir_ / "missing.bin").string()))
      << error;
}

TEST_F(T1Fill, ScriptIsRefusedAndAnUnknownFillTypeNamed) {
  std::string error = error_of(write(R"("FillType": "Script", "DataSource": "make_x.py")"));
  EXPECT_TRUE(contains(error, "scale.json:14:")) << error;
  EXPECT_TRUE(contains(error, "Script is refused: gputune never runs code")) << error;
  error = error_of(write(R"("FillType": "Magic")"));
  EXPECT_TRUE(contains(error, "'Magic' is not a T1 fill type")) << error;
}

TEST_F(T1Fill, ReferenceArgumentsAreTheExpectedOutputs) {
  write_floats("expected.bin", 1024, 1);
  const std::string path = write(R"("FillType": "Generator", "DataSource": "i / 2 + 0.5")",
                                 R"(,
    "ReferenceArguments": [
      {"Name": "expected", "TargetName": "out", "Type": "float", "FillType": "BinaryRaw",
       "DataSource": "expected.bin"}])");
  Problem problem(load_spec(path));
  const ArgumentSpec& out = problem.spec().arguments[0];
  ASSERT_TRUE(out.reference_fill);
  EXPECT_EQ(out.reference_fill->fill, Fill::kData);
  const std::vector<HostBuffer> buffers = make_host_buffers(problem);
  ASSERT_TRUE(buffers[0].given_reference);
  ASSERT_EQ(buffers[0].data.size(), 1024 * sizeof(float));
  float second = 0;
  std::memcpy(&second, buffers[0].data.data() + sizeof(float), sizeof second);
  EXPECT_EQ(second, 2.0f);  // expected.bin's, not the baseline's output

  // A constant reference needs no file, and --check baseline drops it.
  Spec constant = load_spec(write(R"("FillType": "Constant", "FillValue": 1)", R"(,
    "ReferenceArguments": [{"Name": "out", "FillType": "Constant", "FillValue": 2}])"));
  ASSERT_TRUE(constant.arguments[0].reference_fill);
  EXPECT_EQ(constant.arguments[0].reference_fill->fill_value, 2);
  CheckOverride baseline;
  baseline.check = "baseline";
  override_check(constant, baseline);
  EXPECT_FALSE(constant.arguments[0].reference_fill);
}

TEST_F(T1Fill, AReferenceForAnInputOrAWrongTypeIsRefused) {
  std::string error = error_of(write(R"("FillType": "Constant", "FillValue": 1)", R"(,
    "ReferenceArguments": [{"Name": "x", "FillType": "Constant", "FillValue": 2}])"));
  EXPECT_TRUE(contains(error, "reference argument 0 is for 'x', which is not an output")) << error;
  EXPECT_TRUE(contains(error, "expected one of the outputs: out")) << error;
  error = error_of(write(R"("FillType": "Constant", "FillValue": 1)", R"(,
    "ReferenceArguments": [{"Name": "out", "Type": "double", "FillType": "Constant"}])"));
  EXPECT_TRUE(contains(error, "has type 'double'; expected the output's, float32")) << error;
}

}  // namespace
}  // namespace gputune
