#include "search/search_bound.h"
#include "support/text.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

// A search of 100 variants over a 10 s measuring phase, with the given busy times.
SearchRecord record(int64_t gpus, int64_t jobs, double gpu_busy_s, double worker_s,
                    double compile_s) {
  SearchRecord r;
  r.evaluated = 100;
  r.gpus = gpus;
  r.jobs = jobs;
  r.wall_s = 11;
  r.measuring_s = 10;
  r.gpu_busy_s = gpu_busy_s;
  r.time_s = worker_s * 0.8;
  r.check_s = worker_s * 0.2;
  r.compile_s = compile_s;
  return r;
}

using testing::contains;

// 32 compilers always busy, one GPU a third busy: compiles bound it, a second GPU would idle.
TEST(SearchBound, CompilersSaturatedAndTheGpuWaitingIsCompileBound) {
  const SearchBound b = search_bound(record(1, 32, 3.3, 4, 310.4));
  EXPECT_EQ(b.kind, "compile");
  EXPECT_NEAR(b.compile_busy, 0.97, 1e-9);
  EXPECT_NEAR(b.gpu_busy, 0.33, 1e-9);
  EXPECT_DOUBLE_EQ(b.twice_the_gpus, 1);
  EXPECT_DOUBLE_EQ(b.twice_the_cpus, 2);
  EXPECT_TRUE(contains(b.text,
                       "compile-bound: 32 compiler processes 97% busy kept 1 GPU 33% "
                       "busy; another GPU would idle"))
      << b.text;
}

// The GPU workers always occupied, mostly by the variants' kernels: GPU-bound; a second GPU
// buys up to what the compilers have left (here they are 60% busy: 1/0.6).
TEST(SearchBound, WorkersOccupiedByKernelsAreGpuBound) {
  const SearchBound b = search_bound(record(1, 16, 8.5, 9.6, 96));
  EXPECT_EQ(b.kind, "gpu");
  EXPECT_NEAR(b.twice_the_gpus, 1 / 0.6, 1e-9);
  EXPECT_TRUE(contains(b.text, "GPU-bound: 1 GPU 85% busy")) << b.text;
  EXPECT_TRUE(contains(b.text, "twice the GPUs would buy up to 1.7x")) << b.text;
  // With idle compilers the second GPU doubles it.
  EXPECT_DOUBLE_EQ(search_bound(record(2, 16, 17, 19, 20)).twice_the_gpus, 2);
}

// Occupied workers whose GPU mostly waits on checks, flushes and loads: the host bounds it.
TEST(SearchBound, WorkersOccupiedAroundShortKernelsAreHostBound) {
  const SearchBound b = search_bound(record(1, 16, 2, 9.5, 30));
  EXPECT_EQ(b.kind, "host");
  EXPECT_TRUE(contains(b.text, "95% occupied but the GPUs only 20% busy")) << b.text;
}

// Nothing saturated: the search process itself.
TEST(SearchBound, NothingSaturatedIsTheSearchProcess) {
  const SearchBound b = search_bound(record(2, 16, 4, 8, 40));
  EXPECT_EQ(b.kind, "search");
  EXPECT_DOUBLE_EQ(b.twice_the_gpus, 1);
}

// A replay measures no GPU: no bound is named.
TEST(SearchBound, AReplayNamesNone) {
  SearchRecord replay;
  replay.evaluated = 10;
  EXPECT_EQ(search_bound(replay).kind, "");
  EXPECT_EQ(search_bound(replay).text, "");
}

}  // namespace
}  // namespace gputune
