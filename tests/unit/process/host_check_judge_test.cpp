// The driver's half of a host check: outputs named and typed by the problem, inputs filled as the
// GPU worker fills them, a rejection or an exception as a wrong answer. No GPU.
#include "process/host_check_judge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "gputune/error.h"
#include "gputune/session.h"
#include "run/host_buffers.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class HostCheckJudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_host_check_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "__constant__ float filter[3];\n"
                                    "extern \"C\" __global__ void k(const float* a, float* out, "
                                    "float* tmp, int n) {}\n";
    spec_ = spec_from_text(R"(kernel: {source: k.cu, name: k}
problem: {n: 8}
arguments:
  - {name: a, type: float32, count: n, fill: random, seed: 3}
  - {name: out, type: float32, count: n, output: true}
  - {name: tmp, type: float32, count: n, scratch: true}
  - {name: n, type: int32, value: n}
  - {name: filter, type: float32, count: 3, fill: iota, constant: true}
launch: {block: [B], grid: [1]}
parameters: {B: [8]}
)",
                           (dir_ / "spec.yaml").string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::vector<unsigned char> floats(std::vector<float> values) {
    std::vector<unsigned char> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }

  static Measurement measured() {
    Measurement m;
    m.config = "{\"B\":8}";
    m.status = Status::kOk;
    m.samples_ms = {1, 1, 1};
    m.time_ms = 5;
    m.check_ms = 2;
    return m;
  }

  fs::path dir_;
  Spec spec_;
};

TEST_F(HostCheckJudgeTest, SeesOutputsAndInputsByName) {
  Problem problem(spec_);
  HostCheckArrays seen;
  OutputJudge judge = make_host_check_judge(problem, [&](const HostCheckArrays& arrays) {
    seen = arrays;
    return std::string();
  });
  Measurement m = measured();
  judge(&m, {floats({1, 2, 3, 4, 5, 6, 7, 8})});
  EXPECT_EQ(m.status, Status::kOk);
  EXPECT_EQ(m.samples_ms.size(), 3u);
  EXPECT_GE(m.check_ms, 2);
  EXPECT_EQ(seen.config, "{\"B\":8}");
  ASSERT_EQ(seen.outputs.size(), 1u);
  EXPECT_EQ(seen.outputs[0].name, "out");
  EXPECT_EQ(seen.outputs[0].type, ScalarType::kFloat32);
  EXPECT_EQ(seen.outputs[0].count(), 8u);
  EXPECT_EQ(*seen.outputs[0].bytes, floats({1, 2, 3, 4, 5, 6, 7, 8}));
  // The inputs are the input buffer and the constant, filled as the worker fills them; scratch
  // and scalars are not inputs.
  ASSERT_EQ(seen.inputs.size(), 2u);
  EXPECT_EQ(seen.inputs[0].name, "a");
  const InputBytes a = host_fill(spec_.arguments[0], ScalarType::kFloat32, 8);
  EXPECT_EQ(*seen.inputs[0].bytes, std::vector<unsigned char>(a.begin(), a.end()));
  EXPECT_EQ(seen.inputs[1].name, "filter");
  EXPECT_EQ(*seen.inputs[1].bytes, floats({0, 1, 2}));
}

TEST_F(HostCheckJudgeTest, GivenInputDataIsSharedNotCopied) {
  auto data = std::make_shared<const std::vector<unsigned char>>(floats({1, 2, 3, 4, 5, 6, 7, 8}));
  spec_.arguments[0].fill = Fill::kData;
  spec_.arguments[0].data = data;
  Problem problem(spec_);
  const unsigned char* seen = nullptr;
  OutputJudge judge = make_host_check_judge(problem, [&](const HostCheckArrays& arrays) {
    seen = arrays.inputs[0].bytes->data();
    return std::string();
  });
  Measurement m = measured();
  judge(&m, {floats({0, 0, 0, 0, 0, 0, 0, 0})});
  EXPECT_EQ(seen, data->data());
}

TEST_F(HostCheckJudgeTest, ARejectionOrAnExceptionIsAWrongAnswer) {
  Problem problem(spec_);
  int calls = 0;
  OutputJudge judge = make_host_check_judge(problem, [&](const HostCheckArrays&) -> std::string {
    if (++calls == 1) return "out[3] is 4, expected 7";
    throw std::runtime_error("ValueError: shapes differ");
  });
  Measurement m = measured();
  judge(&m, {floats({1, 2, 3, 4, 5, 6, 7, 8})});
  EXPECT_EQ(m.status, Status::kWrongAnswer);
  EXPECT_EQ(m.message, "out[3] is 4, expected 7");
  EXPECT_TRUE(m.samples_ms.empty()) << "a wrong variant has no time";
  EXPECT_EQ(m.time_ms, 0);
  EXPECT_GE(m.check_ms, 7) << "its timing counts as checking";
  Measurement again = measured();
  judge(&again, {floats({1, 2, 3, 4, 5, 6, 7, 8})});
  EXPECT_EQ(again.status, Status::kWrongAnswer);
  EXPECT_EQ(again.message, "ValueError: shapes differ");
}

TEST_F(HostCheckJudgeTest, AGputuneErrorEndsTheSearch) {
  Problem problem(spec_);
  OutputJudge judge = make_host_check_judge(problem, [](const HostCheckArrays&) -> std::string {
    throw Error(ErrorCode::kUsage, "interrupted");
  });
  Measurement m = measured();
  EXPECT_THROW(judge(&m, {floats({1, 2, 3, 4, 5, 6, 7, 8})}), Error);
}

TEST_F(HostCheckJudgeTest, OutputsThatDoNotFitTheProblemAreAnInternalError) {
  Problem problem(spec_);
  OutputJudge judge =
      make_host_check_judge(problem, [](const HostCheckArrays&) { return std::string(); });
  Measurement m = measured();
  EXPECT_THROW(judge(&m, {}), Error);
  EXPECT_THROW(judge(&m, {floats({1, 2})}), Error);
}

}  // namespace
}  // namespace gputune
