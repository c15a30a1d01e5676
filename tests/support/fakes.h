#pragma once
// Stand-ins for the GPU and NVRTC, so the search driver can be tested on any machine.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "run/runner.h"

namespace gputune::testing {

// Compiles anything, except variants whose options contain `fail_option`.
class FakeCompiler : public Compiler {
 public:
  std::string fail_option = "-DFAIL=1";
  int calls = 0;
  CompiledKernel compile(const CompileRequest& request) override {
    ++calls;
    CompiledKernel kernel;
    kernel.ok = true;
    for (const auto& option : request.options) {
      if (option == fail_option) {
        kernel.ok = false;
        kernel.log = "kernel.cu(3): error: FAIL was asked for";
      }
    }
    kernel.lowered_names = request.kernel_name_expressions;
    kernel.registers = 32;
    kernel.compile_ms = 1;
    return kernel;
  }
};

// Times a variant as 1 + its index / 10 ms, or whatever `time_of` says.
class FakeRunner : public Runner {
 public:
  FakeRunner() {
    device_.name = "Fake GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  std::vector<uint64_t> ran;  // config indices, in order
  std::set<uint64_t> wrong;   // indices that fail the check
  int reference_runs = 0;
  double bandwidth_runs = 0;

  const DeviceInfo& device() const override { return device_; }
  Measurement set_reference(const Candidate& baseline) override {
    ++reference_runs;
    return measure(baseline);
  }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> out;
    for (const auto& c : batch) {
      ran.push_back(c.variant.index);
      out.push_back(measure(c));
    }
    return out;
  }
  double measure_copy_bandwidth() override {
    ++bandwidth_runs;
    return 3000;
  }

 private:
  Measurement measure(const Candidate& c) {
    Measurement m;
    m.config_index = c.variant.index;
    m.config = c.variant.config;
    m.registers = c.kernel.registers;
    m.compile_ms = c.kernel.compile_ms;
    if (wrong.count(c.variant.index)) {
      m.status = Status::kWrongAnswer;
      m.message = "1 of 16 elements differ";
      return m;
    }
    double t = 1 + static_cast<double>(c.variant.index) / 10;
    m.samples_ms = {t, t * 1.01, t * 0.99};
    return m;
  }
  DeviceInfo device_;
};

}  // namespace gputune::testing
