#pragma once
// Worker processes and what they say to the driver: fork()ed children on a socket, frames of
// [u32 type][u32 length][payload], payloads in a little binary format. Only this file and its
// .cpp know about fork, sockets and signals.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "gputune/device.h"
#include "gputune/error.h"
#include "gputune/measurement.h"
#include "run/runner.h"

namespace gputune::ipc {

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
void put(Writer& w, const CompileRequest& q);
void get(Reader& r, CompileRequest* q);
void put(Writer& w, const CompiledKernel& k);
void get(Reader& r, CompiledKernel* k);
void put(Writer& w, const Variant& v);
void get(Reader& r, Variant* v);
void put(Writer& w, const Measurement& m);
void get(Reader& r, Measurement* m);
void put(Writer& w, const Error& e);
Error get_error(Reader& r);

// False when the peer is gone (never raises SIGPIPE).
bool write_frame(int fd, uint32_t type, const std::string& payload);
// False at end of file or on a broken frame.
bool read_frame(int fd, uint32_t* type, std::string* payload);
// The descriptors of `fds` that are readable (or closed), waiting at most timeout_ms (< 0:
// forever) for the first; empty on timeout or when a signal interrupts the wait.
std::vector<int> readable(const std::vector<int>& fds, int timeout_ms);

struct Child {
  pid_t pid = -1;
  int fd = -1;  // the parent's end of the socket
};

// Forks a child that runs body(fd) and _exit()s with what it returns. The child dies with
// this process (PR_SET_PDEATHSIG), ignores SIGINT and SIGTERM (a Ctrl-C is the driver's to
// handle; the driver ends its children) and keeps no descriptor but stdio and fd.
Child spawn(const std::function<int(int fd)>& body);
// Closes the socket, SIGKILLs the child and reaps it; returns its wait status.
int kill_child(Child* child);
// Closes the socket and waits up to grace_s for the child to exit on its own, then kills it.
int end_child(Child* child, double grace_s);
// "killed by signal 11 (Segmentation fault)", "exit code 3".
std::string describe_exit(int wait_status);

}  // namespace gputune::ipc
