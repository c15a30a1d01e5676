#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/rank_link.h"
#include "run/async_runner.h"

namespace gputune {

// A measuring rank as rank 0 sees it.
struct RankPeer {
  int fd = -1;
  RankHello hello;
};

// The measuring ranks' hellos: `local` (rank 0's own worker, on a socket pair) and `remote`
// connections accepted on `listener` until `remote` have proved they know the job's `token`
// (rank_link.h) and said hello, or timeout_s passed. A connection that does not prove it
// within `handshake_ms` (a silent one included) is closed and counts for nothing. Ranks that
// did not come, failed to start or were refused are said in `warnings`.
std::vector<RankPeer> gather_ranks(int listener, const std::vector<int>& local, int remote,
                                   double timeout_s, const std::string& token,
                                   std::vector<std::string>* warnings,
                                   int handshake_ms = kRankHandshakeMs);
// Tells every rank that the search is over and closes the connections.
void dismiss_ranks(std::vector<RankPeer>& peers);

// Rank 0's GPUs: the measuring ranks of one device model, each with room for as many configs as
// its hello's depth (its compile workers twice over and four per GPU, so that its compilers run
// ahead as one process's do). A candidate goes to the rank with the most free room as its config
// index; that rank compiles and measures it. A rank that fails or goes away
// costs the configs it had: they come back as runtime errors that name it; the search goes on
// with the others until none is left.
class RemoteRunner : public AsyncRunner {
 public:
  explicit RemoteRunner(std::vector<RankPeer> peers);
  ~RemoteRunner() override;

  const DeviceInfo& device() const override { return device_; }
  Measurement set_reference(const Candidate& baseline) override;
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override;
  double measure_copy_bandwidth() override;
  size_t idle() const override;
  size_t busy() const override { return owner_.size(); }
  uint64_t submit(Candidate candidate) override;
  std::vector<std::pair<uint64_t, Measurement>> poll(int timeout_ms) override;
  // Every rank's GPUs, lost ranks' included (a replay rank stands for one).
  std::vector<DeviceInfo> devices() const override;
  bool times_gpus() const override;    // where a rank's GPUs do
  WorkerStats stats() const override;  // summed over the ranks, as they last reported

  std::vector<RankPeer> release();  // the ranks still alive, for the next device model's search
  int lost_ranks() const { return lost_; }
  // What the user should hear of since the last call: the ranks lost and what they had.
  std::vector<std::string> take_warnings() { return std::exchange(warnings_, {}); }

 private:
  struct Peer {
    RankPeer link;
    bool alive = true;
    size_t in_flight = 0;
    WorkerStats stats;  // as its last measurement reported them
  };
  struct Pending {
    size_t peer;
    uint64_t index;
    std::string config;
  };
  // Marks a rank dead and hands back what it had as lost.
  void lose(size_t peer, const std::string& why,
            std::vector<std::pair<uint64_t, Measurement>>* out);
  size_t capacity(const Peer& peer) const {
    return std::max<size_t>(peer.link.hello.depth, peer.link.hello.slots);
  }

  std::vector<Peer> peers_;
  DeviceInfo device_;
  std::map<uint64_t, Pending> owner_;                           // ticket -> rank and config
  std::vector<std::pair<uint64_t, Measurement>> lost_results_;  // handed back by the next poll
  uint64_t next_ = 1;
  int lost_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace gputune
