#pragma once
// The little binary format worker processes and the module cache speak: fixed-width numbers
// and length-prefixed strings, in the host's byte order (both ends are the same build).
#include <cstdint>
#include <string>
#include <vector>

#include "gputune/device.h"
#include "gputune/error.h"
#include "gputune/measurement.h"

namespace gputune::wire {

class Writer {
 public:
  Writer& u32(uint32_t value);
  Writer& u64(uint64_t value);
  Writer& i64(int64_t value) { return u64(static_cast<uint64_t>(value)); }
  Writer& f64(double value);
  Writer& str(const std::string& value);
  Writer& strings(const std::vector<std::string>& values);
  Writer& doubles(const std::vector<double>& values);
  const std::string& data() const { return data_; }
  std::string take() { return std::move(data_); }

 private:
  std::string data_;
};

// Throws Error(kInternal) when the payload ends early: a frame from a half-dead worker.
class Reader {
 public:
  explicit Reader(const std::string& data) : data_(data) {}
  uint32_t u32();
  uint64_t u64();
  int64_t i64() { return static_cast<int64_t>(u64()); }
  double f64();
  std::string str();
  std::vector<std::string> strings();
  std::vector<double> doubles();
  bool at_end() const { return pos_ == data_.size(); }

 private:
  const char* take(size_t bytes);
  const std::string& data_;
  size_t pos_ = 0;
};

void put(Writer& w, const DeviceInfo& d);
void get(Reader& r, DeviceInfo* d);
void put(Writer& w, const Measurement& m);
void get(Reader& r, Measurement* m);
void put(Writer& w, const Error& e);
Error get_error(Reader& r);

}  // namespace gputune::wire
