#include "core/wire.h"

#include <cstring>

namespace gputune::wire {

namespace {

template <typename T>
void append_raw(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace

Writer& Writer::u32(uint32_t value) {
  append_raw(&data_, value);
  return *this;
}
Writer& Writer::u64(uint64_t value) {
  append_raw(&data_, value);
  return *this;
}
Writer& Writer::f64(double value) {
  append_raw(&data_, value);
  return *this;
}
Writer& Writer::str(const std::string& value) {
  u64(value.size());
  data_.append(value);
  return *this;
}
Writer& Writer::strings(const std::vector<std::string>& values) {
  u64(values.size());
  for (const auto& v : values) str(v);
  return *this;
}
Writer& Writer::doubles(const std::vector<double>& values) {
  u64(values.size());
  for (double v : values) f64(v);
  return *this;
}

const char* Reader::take(size_t bytes) {
  if (bytes > data_.size() - pos_) {
    throw Error(ErrorCode::kInternal, "a worker process sent a truncated message");
  }
  const char* p = data_.data() + pos_;
  pos_ += bytes;
  return p;
}
uint32_t Reader::u32() {
  uint32_t v;
  std::memcpy(&v, take(sizeof v), sizeof v);
  return v;
}
uint64_t Reader::u64() {
  uint64_t v;
  std::memcpy(&v, take(sizeof v), sizeof v);
  return v;
}
double Reader::f64() {
  double v;
  std::memcpy(&v, take(sizeof v), sizeof v);
  return v;
}
std::string Reader::str() {
  const uint64_t size = u64();
  const char* p = take(size);
  return std::string(p, size);
}
std::vector<std::string> Reader::strings() {
  const uint64_t n = u64();
  std::vector<std::string> out;
  for (uint64_t i = 0; i < n; ++i) out.push_back(str());
  return out;
}
std::vector<double> Reader::doubles() {
  const uint64_t n = u64();
  if (n > (data_.size() - pos_) / sizeof(double)) take(data_.size() + 1);  // throws
  std::vector<double> out;
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) out.push_back(f64());
  return out;
}

void put(Writer& w, const DeviceInfo& d) {
  w.i64(d.ordinal).str(d.name).str(d.uuid).i64(d.cc_major).i64(d.cc_minor).i64(d.sm_count);
  w.i64(d.l2_bytes).i64(d.memory_bytes).i64(d.driver_version);
  const SmLimits& sm = d.sm_limits;
  w.i64(sm.registers).i64(sm.threads).i64(sm.blocks).i64(sm.shared_bytes);
  w.i64(sm.reserved_shared_bytes_per_block).i64(sm.register_granularity);
}
void get(Reader& r, DeviceInfo* d) {
  d->ordinal = static_cast<int>(r.i64());
  d->name = r.str();
  d->uuid = r.str();
  d->cc_major = static_cast<int>(r.i64());
  d->cc_minor = static_cast<int>(r.i64());
  d->sm_count = static_cast<int>(r.i64());
  d->l2_bytes = r.i64();
  d->memory_bytes = r.i64();
  d->driver_version = static_cast<int>(r.i64());
  SmLimits& sm = d->sm_limits;
  for (int* limit : {&sm.registers, &sm.threads, &sm.blocks, &sm.shared_bytes,
                     &sm.reserved_shared_bytes_per_block, &sm.register_granularity}) {
    *limit = static_cast<int>(r.i64());
  }
}

// Field by field, in the order of measurement_fields(): both ends are the same build.
void put(Writer& w, const Measurement& m) {
  for (const MeasurementField& field : measurement_fields()) {
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        w.u64(field.of<uint64_t>(m));
        break;
      case FieldKind::kConfig:
      case FieldKind::kText:
        w.str(field.of<std::string>(m));
        break;
      case FieldKind::kStatus:
        w.u32(static_cast<uint32_t>(field.of<Status>(m)));
        break;
      case FieldKind::kSamples:
        w.doubles(field.of<std::vector<double>>(m));
        break;
      case FieldKind::kReal:
        w.f64(field.of<double>(m));
        break;
      case FieldKind::kInteger:
        w.i64(field.of<int>(m));
        break;
    }
  }
}
void get(Reader& r, Measurement* m) {
  for (const MeasurementField& field : measurement_fields()) {
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        field.of<uint64_t>(*m) = r.u64();
        break;
      case FieldKind::kConfig:
      case FieldKind::kText:
        field.of<std::string>(*m) = r.str();
        break;
      case FieldKind::kStatus: {
        const uint32_t status = r.u32();
        if (status > static_cast<uint32_t>(Status::kWrongAnswer)) {
          throw Error(ErrorCode::kInternal, "a worker process sent an unknown status");
        }
        field.of<Status>(*m) = static_cast<Status>(status);
        break;
      }
      case FieldKind::kSamples:
        field.of<std::vector<double>>(*m) = r.doubles();
        break;
      case FieldKind::kReal:
        field.of<double>(*m) = r.f64();
        break;
      case FieldKind::kInteger:
        field.of<int>(*m) = static_cast<int>(r.i64());
        break;
    }
  }
}

void put(Writer& w, const Error& e) { w.u32(static_cast<uint32_t>(e.code())).str(e.what()); }
Error get_error(Reader& r) {
  const uint32_t code = r.u32();
  const std::string message = r.str();
  if (code > static_cast<uint32_t>(ErrorCode::kInternal)) {
    return Error(ErrorCode::kInternal, message);
  }
  return Error(static_cast<ErrorCode>(code), message);
}

}  // namespace gputune::wire
