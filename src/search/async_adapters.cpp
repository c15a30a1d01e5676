#include "search/async_adapters.h"

#include <algorithm>

namespace gputune {

uint64_t SerialCompiles::submit(const CompileRequest& request) {
  queue_.emplace_back(next_, request);
  return next_++;
}

std::vector<std::pair<uint64_t, CompiledKernel>> SerialCompiles::poll(int) {
  std::vector<std::pair<uint64_t, CompiledKernel>> out;
  while (!queue_.empty()) {
    auto [ticket, request] = std::move(queue_.front());
    queue_.pop_front();
    out.emplace_back(ticket, compiler_.compile(request));
  }
  return out;
}

BatchRuns::BatchRuns(Runner& runner, size_t batch)
    : runner_(runner), batch_(std::max<size_t>(batch, 1)) {}

uint64_t BatchRuns::submit(Candidate candidate) {
  queue_.emplace_back(next_, std::move(candidate));
  return next_++;
}

std::vector<std::pair<uint64_t, Measurement>> BatchRuns::poll(int) {
  std::vector<std::pair<uint64_t, Measurement>> out;
  if (queue_.empty()) return out;
  std::vector<Candidate> batch;
  for (const auto& [ticket, candidate] : queue_) batch.push_back(candidate);
  std::vector<Measurement> results = runner_.run(batch);
  for (size_t i = 0; i < results.size() && i < queue_.size(); ++i) {
    out.emplace_back(queue_[i].first, std::move(results[i]));
  }
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(out.size()));
  return out;
}

CompiledKernel compile_now(CompileService& compiles, const CompileRequest& request) {
  const uint64_t ticket = compiles.submit(request);
  for (;;) {
    for (auto& [t, kernel] : compiles.poll(-1)) {
      if (t == ticket) return std::move(kernel);
    }
  }
}

}  // namespace gputune
