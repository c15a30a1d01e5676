#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <utility>

#include "replay/replay.h"

namespace gputune {
namespace {

double positive(double ms) { return std::isfinite(ms) && ms > 0 ? ms : 0; }

class PacedRunner : public Runner {
 public:
  explicit PacedRunner(std::unique_ptr<Runner> inner) : inner_(std::move(inner)) {}
  const DeviceInfo& device() const override { return inner_->device(); }
  Measurement set_reference(const Candidate& baseline) override {
    return inner_->set_reference(baseline);
  }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> out = inner_->run(batch);
    double ms = 0;
    for (const Measurement& m : out) {
      ms += positive(m.compile_ms) + positive(m.check_ms);
      // Older recordings lack the timing phase's length: their samples are its least.
      if (positive(m.time_ms) > 0) {
        ms += m.time_ms;
      } else {
        for (double sample : m.samples_ms) ms += positive(sample);
      }
    }
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
    return out;
  }
  double measure_copy_bandwidth() override { return inner_->measure_copy_bandwidth(); }

 private:
  std::unique_ptr<Runner> inner_;
};

}  // namespace

std::unique_ptr<Runner> pace_like_recorded(std::unique_ptr<Runner> runner) {
  return std::make_unique<PacedRunner>(std::move(runner));
}

}  // namespace gputune
