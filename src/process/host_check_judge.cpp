#include "process/host_check_judge.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/error.h"
#include "run/host_buffers.h"

namespace gputune {
namespace {

using Clock = std::chrono::steady_clock;

class HostCheckJudge {
 public:
  HostCheckJudge(const Problem& problem, HostCheck check)
      : problem_(problem), check_(std::move(check)) {
    const std::vector<BufferShape> shapes = problem.buffers();
    size_t buffer = 0;
    for (const ArgumentSpec& argument : problem.spec().arguments) {
      if (!argument.is_buffer) continue;
      if (argument.output) outputs_.push_back(shapes.at(buffer));
      ++buffer;
    }
  }

  void operator()(Measurement* m, std::vector<std::vector<unsigned char>> outputs) {
    const auto start = Clock::now();
    HostCheckArrays arrays;
    arrays.config = m->config;
    arrays.outputs = named_outputs(std::move(outputs));
    arrays.inputs = inputs();
    std::string verdict;
    try {
      verdict = check_(arrays);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      verdict = e.what();
      if (verdict.empty()) verdict = "the check threw an exception without a message";
    }
    if (!verdict.empty()) {
      m->status = Status::kWrongAnswer;
      m->message = verdict;
      m->samples_ms.clear();
      m->check_ms += m->time_ms;  // the timing was spent on a wrong variant
      m->time_ms = 0;
    }
    m->check_ms += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

 private:
  std::vector<HostArray> named_outputs(std::vector<std::vector<unsigned char>> outputs) const {
    if (outputs.size() != outputs_.size()) {
      throw Error(ErrorCode::kInternal, "the GPU worker sent " + std::to_string(outputs.size()) +
                                            " outputs for the host check; the problem has " +
                                            std::to_string(outputs_.size()));
    }
    std::vector<HostArray> arrays;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const BufferShape& shape = outputs_[i];
      if (outputs[i].size() != shape.count * size_of(shape.type)) {
        throw Error(ErrorCode::kInternal, "the GPU worker sent " +
                                              std::to_string(outputs[i].size()) + " bytes of '" +
                                              shape.name + "' for the host check");
      }
      arrays.push_back({shape.name, shape.type,
                        std::make_shared<const std::vector<unsigned char>>(std::move(outputs[i]))});
    }
    return arrays;
  }

  // Input buffers and constants, as the worker filled them; once per workload.
  const std::vector<HostArray>& inputs() {
    if (inputs_) return *inputs_;
    inputs_.emplace();
    const std::vector<BufferShape> shapes = problem_.buffers();
    size_t buffer = 0;
    for (const ArgumentSpec& argument : problem_.spec().arguments) {
      if (!argument.is_buffer) continue;
      const BufferShape& shape = shapes.at(buffer++);
      if (argument.output || argument.scratch) continue;
      SharedBytes bytes = argument.data;
      if (argument.fill != Fill::kData || !bytes) {
        const InputBytes filled = host_fill(argument, shape.type, shape.count);
        bytes = std::make_shared<const std::vector<unsigned char>>(filled.begin(), filled.end());
      }
      inputs_->push_back({shape.name, shape.type, std::move(bytes)});
    }
    return *inputs_;
  }

  const Problem& problem_;
  HostCheck check_;
  std::vector<BufferShape> outputs_;
  std::optional<std::vector<HostArray>> inputs_;
};

}  // namespace

OutputJudge make_host_check_judge(const Problem& problem, HostCheck check) {
  auto judge = std::make_shared<HostCheckJudge>(problem, std::move(check));
  return [judge](Measurement* m, std::vector<std::vector<unsigned char>> outputs) {
    (*judge)(m, std::move(outputs));
  };
}

}  // namespace gputune
