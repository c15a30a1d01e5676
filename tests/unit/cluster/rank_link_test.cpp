// The ranks' handshake and frames: only the job's ranks are admitted, and no peer can make
// rank 0 wait forever or allocate what it never sends.
#include "cluster/rank_link.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "cluster/remote_runner.h"
#include "cluster/tcp.h"
#include "core/wire.h"
#include "gputune/error.h"
#include "process/ipc.h"

namespace gputune {
namespace {

struct Pair {
  Pair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0); }
  ~Pair() {
    close(fds[0]);
    close(fds[1]);
  }
  int fds[2] = {-1, -1};
};

TEST(RankLink, TheJobsRanksProveTheyKnowTheToken) {
  const std::string token = make_job_token();
  EXPECT_EQ(token.size(), 64u);
  EXPECT_NE(token, make_job_token());
  Pair link;
  auto rank = std::async(std::launch::async, [&] { return join_root(link.fds[1], token, 5000); });
  EXPECT_TRUE(admit_rank(link.fds[0], token));
  EXPECT_TRUE(rank.get());
}

TEST(RankLink, AnotherTokenIsRefusedBothWays) {
  Pair link;
  auto rank = std::async(std::launch::async,
                         [&] { return join_root(link.fds[1], make_job_token(), 5000); });
  EXPECT_FALSE(admit_rank(link.fds[0], make_job_token()));
  shutdown(link.fds[0], SHUT_RDWR);
  EXPECT_FALSE(rank.get());
}

TEST(RankLink, ASilentPeerOrAStalledFrameTimesOut) {
  Pair link;
  uint32_t type = 0;
  std::string payload;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(read_rank_frame(link.fds[0], &type, &payload, 200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // A header that announces more than a rank frame may hold is refused before its bytes.
  char header[8];
  const uint32_t kind = kRankMeasured, size = kMaxRankFrame + 1;
  std::memcpy(header, &kind, 4);
  std::memcpy(header + 4, &size, 4);
  ASSERT_EQ(write(link.fds[1], header, sizeof header), 8);
  EXPECT_FALSE(read_rank_frame(link.fds[0], &type, &payload, 200));
  EXPECT_TRUE(payload.empty());
}

TEST(RankLink, AWholeFrameIsRead) {
  Pair link;
  ASSERT_TRUE(ipc::write_frame(link.fds[1], kRankMeasured, std::string(200000, 'x')));
  uint32_t type = 0;
  std::string payload;
  ASSERT_TRUE(read_rank_frame(link.fds[0], &type, &payload, 1000));
  EXPECT_EQ(type, kRankMeasured);
  EXPECT_EQ(payload.size(), 200000u);
}

// A rank's compile processes and compile time travel with its worker stats: rank 0 only hands
// configs on, so the ranks' compilers are the search's.
TEST(RankLink, WorkerStatsCarryTheRanksCompiles) {
  WorkerStats stats;
  stats.restarts = 2;
  stats.compile_jobs = 16;
  stats.compile_s = 12.5;
  wire::Writer w;
  put_worker_stats(w, stats);
  const std::string bytes = w.take();
  wire::Reader r(bytes);
  const WorkerStats read = get_worker_stats(r);
  EXPECT_EQ(read.restarts, 2);
  EXPECT_EQ(read.compile_jobs, 16);
  EXPECT_DOUBLE_EQ(read.compile_s, 12.5);
  EXPECT_TRUE(r.at_end());
}

TEST(RankLink, AHelloNamingMillionsOfGpusIsRefused) {
  wire::Writer w;
  w.u32(1).str("host");
  wire::put(w, DeviceInfo{});
  w.u32(1).u32(1).u32(100000000);
  EXPECT_THROW(read_hello(w.take()), Error);
}

// An intruder that connects first takes no rank's place: only the connection that proves it
// knows the token is gathered.
TEST(GatherRanks, OnlyConnectionsThatProveTheTokenAreGathered) {
  std::string address;
  const int listener = tcp_listen("127.0.0.1", &address);
  ASSERT_EQ(address.rfind("127.0.0.1:", 0), 0u) << address;
  const std::string token = make_job_token();
  const int intruder = tcp_connect(address, 5);
  ASSERT_TRUE(ipc::write_frame(intruder, kRankProof, std::string(64, 'x')));
  auto rank = std::async(std::launch::async, [&] {
    const int fd = tcp_connect(address, 5);
    if (!join_root(fd, token, 5000)) return -1;
    RankHello hello;
    hello.rank = 3;
    hello.host = "here";
    ipc::write_frame(fd, kRankHello, hello_payload(hello));
    return fd;
  });
  std::vector<std::string> warnings;
  std::vector<RankPeer> peers = gather_ranks(listener, {}, 1, 20, token, &warnings);
  const int rank_fd = rank.get();
  ASSERT_EQ(peers.size(), 1u);
  EXPECT_EQ(peers[0].hello.rank, 3);
  // The refusal is returned for the front end to show, not printed.
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("did not prove it belongs to this job; refused"), std::string::npos)
      << warnings[0];
  for (RankPeer& peer : peers) close(peer.fd);
  close(rank_fd);
  close(intruder);
  close(listener);
}

// A connection that says nothing blocked rank 0 forever (a blocking read, no timeout): it is
// dropped after the handshake's time, and the job's rank behind it is gathered.
TEST(GatherRanks, ASilentConnectionTimesOutAndTheRankBehindItIsGathered) {
  std::string address;
  const int listener = tcp_listen("127.0.0.1", &address);
  const std::string token = make_job_token();
  const int silent = tcp_connect(address, 5);
  auto rank = std::async(std::launch::async, [&] {
    const int fd = tcp_connect(address, 5);
    if (!join_root(fd, token, 20000)) return -1;
    RankHello hello;
    hello.rank = 1;
    hello.host = "here";
    ipc::write_frame(fd, kRankHello, hello_payload(hello));
    return fd;
  });
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> warnings;
  std::vector<RankPeer> peers =
      gather_ranks(listener, {}, 1, 20, token, &warnings, /*handshake_ms=*/300);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  const int rank_fd = rank.get();
  ASSERT_EQ(peers.size(), 1u);
  EXPECT_EQ(peers[0].hello.rank, 1);
  for (RankPeer& peer : peers) close(peer.fd);
  close(rank_fd);
  close(silent);
  close(listener);
}

TEST(ListenHost, NeverEveryInterface) {
  EXPECT_EQ(listen_host(true), "127.0.0.1");
  try {
    EXPECT_NE(listen_host(false), "0.0.0.0");
  } catch (const Error&) {
    // A host with no address but loopback says so.
  }
  ::setenv("GPUTUNE_MPI_INTERFACE", "lo", 1);
  EXPECT_EQ(listen_host(false), "127.0.0.1");
  ::setenv("GPUTUNE_MPI_INTERFACE", "10.1.2.3", 1);
  EXPECT_EQ(listen_host(true), "10.1.2.3");
  ::setenv("GPUTUNE_MPI_INTERFACE", "no-such-interface0", 1);
  EXPECT_THROW(listen_host(false), Error);
  ::unsetenv("GPUTUNE_MPI_INTERFACE");
}

}  // namespace
}  // namespace gputune
