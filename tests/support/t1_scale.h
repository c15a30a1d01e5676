#pragma once
// A folder with a kernel `scale(out, x, n)` and a T1 file whose `x` fill (and what follows its
// Arguments) each test chooses: the fixture of the T1 fill tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

namespace gputune::testing {

class T1Scale : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gputune_t1_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "scale.cu")
        << "extern \"C\" __global__ void scale(float* out, const float* x, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = 2.0f * x[i];\n}\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The T1 file with `x_fill` as x's fill keys (line 14) and `more` after Arguments.
  std::string write(const std::string& x_fill, const std::string& more = "") const {
    const std::filesystem::path path = dir_ / "scale.json";
    std::ofstream(path)
        << "{\n"
           "  \"ConfigurationSpace\": {\"TuningParameters\": [\n"
           "    {\"Name\": \"block_size_x\", \"Values\": \"[64, 128]\"}]},\n"
           "  \"KernelSpecification\": {\n"
           "    \"Language\": \"CUDA\", \"KernelName\": \"scale\",\n"
           "    \"KernelFile\": \"scale.cu\", \"ProblemSize\": [1024],\n"
           "    \"GlobalSizeType\": \"OpenCL\", \"GlobalSize\": {\"X\": 1024},\n"
           "    \"LocalSize\": {\"X\": \"block_size_x\"},\n"
           "    \"Arguments\": [\n"
           "      {\"Name\": \"out\", \"Type\": \"float\", \"Size\": 1024,\n"
           "       \"MemoryType\": \"Vector\", \"AccessType\": \"WriteOnly\"},\n"
           "      {\"Name\": \"x\", \"Type\": \"float\", \"Size\": \"ProblemSize[0]\",\n"
           "       \"MemoryType\": \"Vector\", \"AccessType\": \"ReadOnly\",\n"
           "       "
        << x_fill
        << "},\n"
           "      {\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": "
           "\"Scalar\",\n"
           "       \"FillValue\": 1024}]"
        << more << "}\n}\n";
    return path.string();
  }
  void write_floats(const std::string& name, size_t count, float first = 0) const {
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = first + static_cast<float>(i);
    std::ofstream(dir_ / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()),
               static_cast<std::streamsize>(count * sizeof(float)));
  }
  // The error loading `path` into a Problem gives (expected of `code`), or "" for none.
  static std::string error_of(const std::string& path, ErrorCode code = ErrorCode::kSpec) {
    try {
      Problem problem(load_spec(path));
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      return e.what();
    }
    return "";
  }

  std::filesystem::path dir_;
};

}  // namespace gputune::testing
