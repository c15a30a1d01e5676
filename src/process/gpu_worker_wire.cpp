#include "process/gpu_worker_wire.h"

#include <algorithm>

#include "process/ipc.h"

namespace gputune::gpu_wire {

void put_candidate(wire::Writer& w, const Candidate& c) {
  wire::put(w, c.variant);
  wire::put(w, c.kernel);
  w.f64(c.race.cut_above_ms);
  w.i64(c.race.min_samples);
}

int send_fatal(int fd, const Error& e) {
  wire::Writer w;
  wire::put(w, e);
  ipc::write_frame(fd, kFatal, w.data());
  return 1;
}

bool send_outputs(int fd, const std::vector<std::vector<unsigned char>>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::vector<unsigned char>& output = outputs[i];
    size_t offset = 0;
    do {
      const size_t piece = std::min(kOutputPieceBytes, output.size() - offset);
      wire::Writer w;
      w.u64(i).u64(output.size()).u64(offset);
      std::string payload = w.take();
      payload.append(reinterpret_cast<const char*>(output.data()) + offset, piece);
      if (!ipc::write_frame(fd, kOutput, payload)) return false;
      offset += piece;
    } while (offset < output.size());
  }
  return true;
}

void receive_output(const std::string& payload, std::vector<std::vector<unsigned char>>* outputs) {
  wire::Reader reader(payload);
  const uint64_t index = reader.u64(), size = reader.u64(), offset = reader.u64();
  constexpr size_t kHeader = 3 * sizeof(uint64_t);
  const size_t piece = payload.size() - kHeader;
  if (index > outputs->size() || offset + piece > size) {
    throw Error(ErrorCode::kInternal, "a GPU worker sent a broken output frame");
  }
  if (index == outputs->size()) outputs->emplace_back(size);
  std::vector<unsigned char>& output = (*outputs)[index];
  if (output.size() != size)
    throw Error(ErrorCode::kInternal, "a GPU worker's output changed size");
  std::copy(payload.begin() + kHeader, payload.end(), output.begin() + offset);
}

bool send_phase(int fd, SearchPhase phase) {
  wire::Writer w;
  w.i64(static_cast<int64_t>(phase));
  return ipc::write_frame(fd, kPhase, w.data());
}

void put_metrics(wire::Writer& w, const std::vector<RangeMetric>& metrics) {
  std::vector<std::string> collect, report;
  for (const RangeMetric& metric : metrics) {
    collect.push_back(metric.collect);
    report.push_back(metric.report);
  }
  w.strings(collect).strings(report);
}

void put_counters(wire::Writer& w, const RangeCounters& counters) {
  w.u64(counters.ok).str(counters.message).u64(counters.unavailable).u64(counters.context_lost);
  w.str(counters.source).u64(counters.launches.size());
  for (const auto& launch : counters.launches) {
    std::vector<std::string> names;
    std::vector<double> values;
    for (const auto& [name, value] : launch) {
      names.push_back(name);
      values.push_back(value);
    }
    w.strings(names).doubles(values);
  }
}

RangeCounters get_counters(wire::Reader& r) {
  RangeCounters counters;
  counters.ok = r.u64() != 0;
  counters.message = r.str();
  counters.unavailable = r.u64() != 0;
  counters.context_lost = r.u64() != 0;
  counters.source = r.str();
  const uint64_t launches = r.u64();
  for (uint64_t i = 0; i < launches; ++i) {
    const std::vector<std::string> names = r.strings();
    const std::vector<double> values = r.doubles();
    auto& launch = counters.launches.emplace_back();
    for (size_t k = 0; k < names.size() && k < values.size(); ++k) launch[names[k]] = values[k];
  }
  return counters;
}

bool read_worker_frame(int fd, WorkerFrame* frame) {
  std::string payload;
  if (!ipc::read_frame(fd, &frame->type, &payload)) return false;
  if (frame->type == kRun || frame->type == kReference || frame->type == kProfile) {
    wire::Reader reader(payload);
    wire::get(reader, &frame->candidate.variant);
    wire::get(reader, &frame->candidate.kernel);
    frame->candidate.race.cut_above_ms = reader.f64();
    frame->candidate.race.min_samples = static_cast<int>(reader.i64());
    if (frame->type == kProfile) {
      const std::vector<std::string> collect = reader.strings(), report = reader.strings();
      for (size_t i = 0; i < collect.size() && i < report.size(); ++i) {
        frame->metrics.push_back({collect[i], report[i]});
      }
    }
  }
  return true;
}

}  // namespace gputune::gpu_wire
