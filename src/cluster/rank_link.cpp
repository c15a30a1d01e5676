#include "cluster/rank_link.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <random>

#include "core/sha256.h"
#include "core/wire.h"
#include "gputune/error.h"
#include "process/ipc.h"

namespace gputune {
namespace {

constexpr size_t kChallengeBytes = 32;
// Hellos name a rank's GPUs; more than this is no host's.
constexpr uint32_t kMaxHelloGpus = 4096;

using Clock = std::chrono::steady_clock;

// Reads exactly `size` bytes by `deadline` (none: as long as it takes).
bool read_by(int fd, char* data, size_t size, const Clock::time_point* deadline) {
  while (size > 0) {
    int wait = -1;
    if (deadline != nullptr) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return false;
      wait = static_cast<int>(left);
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = read(fd, data, size);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string random_bytes(size_t count) {
  std::random_device random;
  std::string out;
  for (size_t i = 0; i < count; ++i) out += static_cast<char>(random() & 0xFF);
  return out;
}

std::string answer(const std::string& token, const std::string& role,
                   const std::string& challenge) {
  const Sha256Digest mac = hmac_sha256(token, role + challenge);
  return std::string(reinterpret_cast<const char*>(mac.data()), mac.size());
}

bool same(const std::string& a, const std::string& b) {
  if (a.size() != 32 || b.size() != 32) return false;
  Sha256Digest x{}, y{};
  std::memcpy(x.data(), a.data(), 32);
  std::memcpy(y.data(), b.data(), 32);
  return same_digest(x, y);
}

}  // namespace

bool read_rank_frame(int fd, uint32_t* type, std::string* payload, int first_ms) {
  char header[8];
  const Clock::time_point start = Clock::now();
  // The first byte may be long in coming (a rank measuring); the rest of a frame may not.
  if (first_ms >= 0) {
    const Clock::time_point first = start + std::chrono::milliseconds(first_ms);
    if (!read_by(fd, header, 1, &first)) return false;
  } else if (!read_by(fd, header, 1, nullptr)) {
    return false;
  }
  Clock::time_point rest = Clock::now() + std::chrono::milliseconds(kRankFrameRestMs);
  if (!read_by(fd, header + 1, sizeof header - 1, &rest)) return false;
  uint32_t size = 0;
  std::memcpy(type, header, 4);
  std::memcpy(&size, header + 4, 4);
  if (size > kMaxRankFrame) return false;
  payload->clear();
  // Grown as bytes arrive: a header that announces much and sends little costs nothing.
  char chunk[65536];
  while (payload->size() < size) {
    const size_t want = std::min(sizeof chunk, size - payload->size());
    if (!read_by(fd, chunk, want, &rest)) return false;
    payload->append(chunk, want);
  }
  return true;
}

std::string make_job_token() {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : random_bytes(32)) {
    out += kDigits[(static_cast<unsigned char>(c) >> 4) & 15];
    out += kDigits[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

bool admit_rank(int fd, const std::string& token, int handshake_ms) {
  const std::string challenge = random_bytes(kChallengeBytes);
  if (!ipc::write_frame(fd, kRankChallenge, challenge)) return false;
  uint32_t type = 0;
  std::string proof;
  if (!read_rank_frame(fd, &type, &proof, handshake_ms) || type != kRankProof ||
      proof.size() != 32 + kChallengeBytes) {
    return false;
  }
  if (!same(proof.substr(0, 32), answer(token, "rank", challenge))) return false;
  return ipc::write_frame(fd, kRankWelcome, answer(token, "root", proof.substr(32)));
}

bool join_root(int fd, const std::string& token, int first_ms) {
  uint32_t type = 0;
  std::string challenge, welcome;
  if (!read_rank_frame(fd, &type, &challenge, first_ms) || type != kRankChallenge ||
      challenge.size() != kChallengeBytes) {
    return false;
  }
  const std::string mine = random_bytes(kChallengeBytes);
  if (!ipc::write_frame(fd, kRankProof, answer(token, "rank", challenge) + mine)) return false;
  return read_rank_frame(fd, &type, &welcome, kRankHandshakeMs) && type == kRankWelcome &&
         same(welcome, answer(token, "root", mine));
}

std::string hello_payload(const RankHello& hello) {
  wire::Writer w;
  w.u32(static_cast<uint32_t>(hello.rank)).str(hello.host);
  wire::put(w, hello.device);
  w.u32(hello.slots).u32(hello.depth);
  w.u32(static_cast<uint32_t>(hello.gpus.size()));
  for (const std::string& uuid : hello.gpus) w.str(uuid);
  return w.take();
}

RankHello read_hello(const std::string& payload) {
  wire::Reader r(payload);
  RankHello hello;
  hello.rank = static_cast<int>(r.u32());
  hello.host = r.str();
  wire::get(r, &hello.device);
  hello.slots = r.u32();
  hello.depth = r.u32();
  const uint32_t gpus = r.u32();
  if (gpus > kMaxHelloGpus)
    throw Error(ErrorCode::kInternal, "a hello naming " + std::to_string(gpus) + " GPUs");
  hello.gpus.resize(gpus);
  for (std::string& uuid : hello.gpus) uuid = r.str();
  if (!r.at_end()) throw Error(ErrorCode::kInternal, "a hello with bytes after its end");
  return hello;
}

std::vector<std::string> gpus_shared_by_ranks(const std::vector<RankHello>& hellos) {
  std::map<std::string, std::vector<const RankHello*>> by_gpu;
  std::vector<std::string> order;
  for (const RankHello& hello : hellos) {
    for (const std::string& uuid : hello.gpus) {
      if (uuid.empty()) continue;
      auto& ranks = by_gpu[uuid];
      if (ranks.empty()) order.push_back(uuid);
      ranks.push_back(&hello);
    }
  }
  std::vector<std::string> lines;
  for (const std::string& uuid : order) {
    const auto& ranks = by_gpu[uuid];
    if (ranks.size() < 2) continue;
    std::string names;
    for (const RankHello* hello : ranks) {
      names += (names.empty()           ? "ranks "
                : ranks.back() == hello ? " and "
                                        : ", ") +
               std::to_string(hello->rank);
    }
    lines.push_back(names + (ranks.size() == 2 ? " both" : " all") + " measure on " +
                    ranks.front()->host + "'s GPU " + uuid + " (" + ranks.front()->device.name +
                    "), so their timings disturb each other");
  }
  return lines;
}

void put_worker_stats(wire::Writer& w, const WorkerStats& stats) {
  w.i64(stats.restarts).i64(stats.timeouts).i64(stats.crashes);
  w.i64(stats.compile_jobs).f64(stats.compile_s);
}

WorkerStats get_worker_stats(wire::Reader& r) {
  WorkerStats stats;
  stats.restarts = r.i64();
  stats.timeouts = r.i64();
  stats.crashes = r.i64();
  stats.compile_jobs = r.i64();
  stats.compile_s = r.f64();
  return stats;
}

}  // namespace gputune
