#pragma once
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "compile/compile_service.h"
#include "run/async_runner.h"
#include "run/runner.h"

namespace gputune {

// A plain Compiler behind the asynchronous interface: compiles what was submitted on poll().
class SerialCompiles : public CompileService {
 public:
  explicit SerialCompiles(Compiler& compiler) : compiler_(compiler) {}
  size_t parallelism() const override { return 1; }
  uint64_t submit(const CompileRequest& request) override;
  std::vector<std::pair<uint64_t, CompiledKernel>> poll(int) override;
  size_t pending() const override { return queue_.size(); }
  void cancel() override { queue_.clear(); }

 private:
  Compiler& compiler_;
  std::deque<std::pair<uint64_t, CompileRequest>> queue_;
  uint64_t next_ = 1;
};

// A plain Runner behind the asynchronous interface: up to `batch` candidates, measured in one
// run() call on poll(). After a sticky error the rest stay queued, and the next run() throws.
class BatchRuns : public AsyncRunner {
 public:
  BatchRuns(Runner& runner, size_t batch);
  const DeviceInfo& device() const override { return runner_.device(); }
  Measurement set_reference(const Candidate& baseline) override {
    return runner_.set_reference(baseline);
  }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    return runner_.run(batch);
  }
  double measure_copy_bandwidth() override { return runner_.measure_copy_bandwidth(); }
  size_t idle() const override { return batch_ > queue_.size() ? batch_ - queue_.size() : 0; }
  size_t busy() const override { return queue_.size(); }
  uint64_t submit(Candidate candidate) override;
  std::vector<std::pair<uint64_t, Measurement>> poll(int) override;

 private:
  Runner& runner_;
  size_t batch_;
  std::deque<std::pair<uint64_t, Candidate>> queue_;
  uint64_t next_ = 1;
};

// Compiles one request and waits for it.
CompiledKernel compile_now(CompileService& compiles, const CompileRequest& request);

}  // namespace gputune
