#pragma once
// A T1 tuning-problem file of the tests' own: `add.cu` (out[i] = x[i] + 1) and `add.json`, whose
// output `out` is checked as the file says, over block_size_x in `block_sizes`.
#include <filesystem>
#include <fstream>
#include <string>

namespace gputune::testing {

inline std::string write_add_t1(const std::filesystem::path& dir,
                                const std::string& block_sizes = "[64, 128]") {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "add.cu")
      << "extern \"C\" __global__ void add(float* out, const float* x, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = x[i] + 1.0f;\n}\n";
  std::ofstream(dir / "add.json") << R"({
  "ConfigurationSpace": {"TuningParameters": [
    {"Name": "block_size_x", "Type": "int", "Values": ")"
                                  << block_sizes << R"(", "Default": 64}]},
  "KernelSpecification": {
    "Language": "CUDA", "KernelName": "add", "KernelFile": "add.cu", "ProblemSize": [4096],
    "GlobalSizeType": "OpenCL", "GlobalSize": {"X": "ProblemSize[0]"},
    "LocalSize": {"X": "block_size_x"},
    "Arguments": [
      {"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector",
       "AccessType": "WriteOnly"},
      {"Name": "x", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector",
       "AccessType": "ReadOnly", "FillType": "Random", "FillValue": 1.0},
      {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": "ProblemSize[0]"}]}
})";
  return (dir / "add.json").string();
}

}  // namespace gputune::testing
