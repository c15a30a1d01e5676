#include "cluster/remote_runner.h"

#include <unistd.h>

#include <chrono>
#include <sstream>
#include <utility>

#include "cluster/tcp.h"
#include "core/wire.h"
#include "gputune/error.h"
#include "process/ipc.h"

namespace gputune {
namespace {

std::string who(const RankPeer& peer) {
  return "rank " + std::to_string(peer.hello.rank) + " on " + peer.hello.host;
}

// Reads frames from one rank until one of `type` arrives; throws when the rank fails or is gone.
std::string expect(const RankPeer& peer, uint32_t type) {
  uint32_t got = 0;
  std::string payload;
  if (!read_rank_frame(peer.fd, &got, &payload, -1)) {
    throw Error(ErrorCode::kInternal, who(peer) + " went away");
  }
  if (got == kRankFailed) throw Error(ErrorCode::kInternal, who(peer) + ": " + payload);
  if (got != type) {
    throw Error(ErrorCode::kInternal, who(peer) + " sent frame " + std::to_string(got));
  }
  return payload;
}

}  // namespace

std::vector<RankPeer> gather_ranks(int listener, const std::vector<int>& local, int remote,
                                   double timeout_s, const std::string& token,
                                   std::vector<std::string>* warnings, int handshake_ms) {
  std::vector<int> fds = local;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  const auto left_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now())
        .count();
  };
  for (int accepted = 0; accepted < remote;) {
    if (left_ms() <= 0) break;
    std::string peer;
    const int fd = tcp_accept(listener, static_cast<int>(left_ms()), &peer);
    if (fd < 0) continue;
    if (!admit_rank(fd, token, handshake_ms)) {
      warnings->push_back("a connection from " + peer +
                          " did not prove it belongs to this job; refused");
      close(fd);
      continue;
    }
    fds.push_back(fd);
    ++accepted;
  }
  if (static_cast<int>(fds.size() - local.size()) < remote) {
    std::ostringstream warning;
    warning << fds.size() - local.size() << " of " << remote << " ranks reached rank 0 in "
            << timeout_s << " s; going on without the others";
    warnings->push_back(warning.str());
  }
  std::vector<RankPeer> peers;
  for (int fd : fds) {
    RankPeer peer;
    peer.fd = fd;
    try {
      // Every peer here is the job's: a rank may take long to start its GPUs.
      peer.hello = read_hello(expect(peer, kRankHello));
    } catch (const Error& e) {
      warnings->push_back(std::string("a rank failed to start: ") + e.what());
      close(fd);
      continue;
    }
    peers.push_back(std::move(peer));
  }
  return peers;
}

void dismiss_ranks(std::vector<RankPeer>& peers) {
  for (RankPeer& peer : peers) {
    if (peer.fd < 0) continue;
    ipc::write_frame(peer.fd, kRankDone, "");
    close(peer.fd);
    peer.fd = -1;
  }
}

RemoteRunner::RemoteRunner(std::vector<RankPeer> peers) {
  if (peers.empty()) throw Error(ErrorCode::kNoGpu, "--mpi: no rank can measure");
  device_ = peers.front().hello.device;
  for (RankPeer& peer : peers) peers_.push_back({std::move(peer)});
}

RemoteRunner::~RemoteRunner() {
  for (Peer& peer : peers_) {
    if (peer.link.fd >= 0) close(peer.link.fd);
  }
}

std::vector<RankPeer> RemoteRunner::release() {
  std::vector<RankPeer> out;
  for (Peer& peer : peers_) {
    if (peer.alive && peer.link.fd >= 0) out.push_back(peer.link);
    peer.link.fd = -1;
  }
  return out;
}

// Every rank runs the baseline: its outputs are the reference that rank checks against.
Measurement RemoteRunner::set_reference(const Candidate&) {
  std::vector<std::pair<uint64_t, Measurement>> lost;
  for (size_t i = 0; i < peers_.size(); ++i) {
    if (!ipc::write_frame(peers_[i].link.fd, kRankSetReference, "")) lose(i, "went away", &lost);
  }
  std::optional<Measurement> first;
  std::string failure;
  for (size_t i = 0; i < peers_.size(); ++i) {
    if (!peers_[i].alive) continue;
    try {
      const std::string payload = expect(peers_[i].link, kRankReference);
      wire::Reader r(payload);  // holds a reference: the payload must outlive it
      Measurement m;
      wire::get(r, &m);
      if (!first) first = std::move(m);
    } catch (const Error& e) {
      failure = e.what();
      lose(i, e.what(), &lost);
    }
  }
  if (!first) throw Error(ErrorCode::kInternal, "--mpi: no rank ran the baseline: " + failure);
  return *first;
}

std::vector<Measurement> RemoteRunner::run(const std::vector<Candidate>& batch) {
  std::map<uint64_t, size_t> order;
  for (const Candidate& c : batch) order[submit(c)] = order.size();
  std::vector<Measurement> out(batch.size());
  while (!order.empty()) {
    for (auto& [ticket, m] : poll(-1)) {
      auto it = order.find(ticket);
      if (it == order.end()) continue;
      out[it->second] = std::move(m);
      order.erase(it);
    }
  }
  return out;
}

double RemoteRunner::measure_copy_bandwidth() {
  std::vector<std::pair<uint64_t, Measurement>> lost;
  for (size_t i = 0; i < peers_.size(); ++i) {
    if (!peers_[i].alive) continue;
    try {
      if (!ipc::write_frame(peers_[i].link.fd, kRankBandwidth, "")) {
        throw Error(ErrorCode::kInternal, "went away");
      }
      const std::string payload = expect(peers_[i].link, kRankBandwidthIs);
      wire::Reader r(payload);
      return r.f64();
    } catch (const Error& e) {
      lose(i, e.what(), &lost);
    }
  }
  throw Error(ErrorCode::kInternal, "--mpi: every rank went away");
}

std::vector<DeviceInfo> RemoteRunner::devices() const {
  std::vector<DeviceInfo> out;
  for (const Peer& peer : peers_) {
    const RankHello& hello = peer.link.hello;
    for (uint32_t slot = 0; slot < std::max<uint32_t>(hello.slots, 1); ++slot) {
      DeviceInfo device = hello.device;
      if (slot < hello.gpus.size()) device.uuid = hello.gpus[slot];
      out.push_back(std::move(device));
    }
  }
  return out;
}

bool RemoteRunner::times_gpus() const {
  return std::any_of(peers_.begin(), peers_.end(),
                     [](const Peer& peer) { return !peer.link.hello.gpus.empty(); });
}

WorkerStats RemoteRunner::stats() const {
  WorkerStats sum;
  for (const Peer& peer : peers_) {
    sum.restarts += peer.stats.restarts;
    sum.timeouts += peer.stats.timeouts;
    sum.crashes += peer.stats.crashes;
    sum.compile_jobs += peer.stats.compile_jobs;
    sum.compile_s += peer.stats.compile_s;
  }
  return sum;
}

size_t RemoteRunner::idle() const {
  size_t free = 0;
  for (const Peer& peer : peers_) {
    if (peer.alive && peer.in_flight < capacity(peer)) free += capacity(peer) - peer.in_flight;
  }
  return free;
}

uint64_t RemoteRunner::submit(Candidate candidate) {
  const uint64_t ticket = next_++;
  for (;;) {
    size_t best = peers_.size();
    for (size_t i = 0; i < peers_.size(); ++i) {
      if (!peers_[i].alive) continue;
      const size_t free = capacity(peers_[i]) - std::min(capacity(peers_[i]), peers_[i].in_flight);
      if (best == peers_.size() ||
          free >
              capacity(peers_[best]) - std::min(capacity(peers_[best]), peers_[best].in_flight)) {
        best = i;
      }
    }
    if (best == peers_.size()) {
      throw Error(ErrorCode::kInternal, "--mpi: every measuring rank went away");
    }
    wire::Writer w;
    w.u64(ticket).u64(candidate.variant.index);
    w.f64(candidate.race.cut_above_ms).i64(candidate.race.min_samples);
    if (ipc::write_frame(peers_[best].link.fd, kRankMeasure, w.take())) {
      ++peers_[best].in_flight;
      owner_[ticket] = {best, candidate.variant.index, candidate.variant.config};
      return ticket;
    }
    std::vector<std::pair<uint64_t, Measurement>> lost;
    lose(best, "went away", &lost);
    // Nothing of this ticket was in flight; what the rank had is handed back by the next poll.
    for (auto& item : lost) lost_results_.push_back(std::move(item));
  }
}

std::vector<std::pair<uint64_t, Measurement>> RemoteRunner::poll(int timeout_ms) {
  std::vector<std::pair<uint64_t, Measurement>> out = std::move(lost_results_);
  lost_results_.clear();
  if (!out.empty()) timeout_ms = 0;
  std::vector<int> fds;
  for (const Peer& peer : peers_) {
    if (peer.alive && peer.in_flight > 0) fds.push_back(peer.link.fd);
  }
  if (fds.empty()) return out;
  for (int fd : ipc::readable(fds, timeout_ms)) {
    size_t i = 0;
    while (peers_[i].link.fd != fd) ++i;
    uint32_t type = 0;
    std::string payload;
    if (!read_rank_frame(fd, &type, &payload, kRankFrameRestMs)) {
      lose(i, "went away or sent a broken frame", &out);
      continue;
    }
    if (type == kRankFailed) {
      lose(i, payload, &out);
      continue;
    }
    if (type != kRankMeasured) continue;
    wire::Reader r(payload);
    const uint64_t ticket = r.u64();
    Measurement m;
    wire::get(r, &m);
    peers_[i].stats = get_worker_stats(r);
    auto it = owner_.find(ticket);
    if (it == owner_.end()) continue;
    --peers_[i].in_flight;
    owner_.erase(it);
    out.emplace_back(ticket, std::move(m));
  }
  return out;
}

void RemoteRunner::lose(size_t peer, const std::string& why,
                        std::vector<std::pair<uint64_t, Measurement>>* out) {
  Peer& p = peers_[peer];
  if (!p.alive) return;
  p.alive = false;
  ++lost_;
  close(p.link.fd);
  p.link.fd = -1;
  warnings_.push_back(who(p.link) + " " + why + "; " + std::to_string(p.in_flight) +
                      " variants it had are lost, the search goes on");
  for (auto it = owner_.begin(); it != owner_.end();) {
    if (it->second.peer != peer) {
      ++it;
      continue;
    }
    Measurement m;
    m.config_index = it->second.index;
    m.config = it->second.config;
    m.status = Status::kRuntimeError;
    m.message = who(p.link) + " was lost while measuring this variant (" + why + ")";
    out->emplace_back(it->first, std::move(m));
    it = owner_.erase(it);
  }
  p.in_flight = 0;
}

}  // namespace gputune
