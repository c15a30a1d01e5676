// The method's index analysis on a table of accesses: each global access's index as an affine
// form, its class, the coalescing verdict, what the threads and blocks share, and the rules'
// decisions; the method's own worked examples among them.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "support/engine_golden.h"

namespace gputune::engine {
namespace {

// One access as the table lists it.
struct Row {
  std::string array, access;  // access: "read", "write", "read+write"
  std::string index, index_class, coalescing, shared;
};

struct Case {
  std::string name, kernel;
  std::vector<Row> rows;
};

std::string access_text(const AccessFact& fact) {
  return fact.read && fact.write ? "read+write" : fact.write ? "write" : "read";
}

std::string shared_text(const AccessFact& fact) {
  std::string text;
  for (const std::string& who : fact.shared) text += (text.empty() ? "" : ", ") + who;
  return text;
}

std::vector<AccessFact> facts_of(const std::string& text) {
  const Analysis analysis =
      source_engine().analyse(test::engine_unit("k.cu", text), {"stage_shared"});
  EXPECT_TRUE(analysis.parsed) << analysis.diagnostics;
  return analysis.accesses;
}

class AccessTable : public testing::TestWithParam<Case> {};

TEST_P(AccessTable, ClassAndCoalescingOfEachAccess) {
  const std::vector<AccessFact> facts = facts_of(GetParam().kernel);
  ASSERT_EQ(facts.size(), GetParam().rows.size());
  for (size_t i = 0; i < facts.size(); ++i) {
    const Row& row = GetParam().rows[i];
    SCOPED_TRACE(facts[i].place.str() + ": " + facts[i].place.text);
    EXPECT_EQ(facts[i].array, row.array);
    EXPECT_EQ(access_text(facts[i]), row.access);
    EXPECT_EQ(facts[i].index, row.index);
    EXPECT_EQ(facts[i].index_class, row.index_class);
    EXPECT_EQ(facts[i].coalescing, row.coalescing);
    EXPECT_EQ(shared_text(facts[i]), row.shared);
  }
}

const char* kIds = "thread/block ids";
const char* kLoop = "loop iterator";

INSTANTIATE_TEST_SUITE_P(
    Method, AccessTable,
    testing::Values(
        // The naive transpose: the read walks a row, the write goes down a column.
        Case{
            "transpose",
            "__global__ void t(float* out, const float* in, int rows, int cols) {\n"
            "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];\n"
            "}\n",
            {{"out", "write",
              "rows*threadIdx.x + threadIdx.y + blockDim.x*rows*blockIdx.x + blockDim.y*blockIdx.y",
              kIds, "uncoalesced", ""},
             {"in", "read",
              "threadIdx.x + cols*threadIdx.y + blockDim.x*blockIdx.x + blockDim.y*cols*blockIdx.y",
              kIds, "coalesced", ""}}},
        // The method's 2-D examples: A[idy][i] is not coalesced, B[i][idx] is; B[idx + i] as a
        // 1-D index is, i being the same across the warp.
        Case{"two_dimensional",
             "__global__ void mm(float (*C)[64], const float (*A)[64], const float (*B)[64],\n"
             "                   const float* V) {\n"
             "  int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  int idy = blockIdx.y * blockDim.y + threadIdx.y;\n"
             "  float sum = 0;\n"
             "  for (int i = 0; i < 64; i++) sum += A[idy][i] * B[i][idx] + V[idx + i];\n"
             "  C[idy][idx] = sum;\n"
             "}\n",
             {{"A", "read", "[threadIdx.y + blockDim.y*blockIdx.y][i]", kLoop, "uniform",
               "threads along x, blocks along x"},
              {"B", "read", "[i][threadIdx.x + blockDim.x*blockIdx.x]", kLoop, "coalesced",
               "threads along y, blocks along y"},
              {"V", "read", "threadIdx.x + blockDim.x*blockIdx.x + i", kLoop, "coalesced",
               "threads along y, blocks along y"},
              {"C", "write",
               "[threadIdx.y + blockDim.y*blockIdx.y][threadIdx.x + blockDim.x*blockIdx.x]", kIds,
               "coalesced", ""}}},
        Case{"rows_of_a_matrix",
             "__global__ void m(const float (*A)[64], float* out) {\n"
             "  int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  out[idx] = A[idx][0];\n"
             "}\n",
             {{"out", "write", "threadIdx.x + blockDim.x*blockIdx.x", kIds, "coalesced", ""},
              {"A", "read", "[threadIdx.x + blockDim.x*blockIdx.x][0]", kIds, "uncoalesced", ""}}},
        // One thread per row: the row's words are neighbours across iterations, not threads.
        Case{
            "matvec",
            "__global__ void mv(float* y, const float* A, const float* x, int m, int n) {\n"
            "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (row < m) {\n"
            "    float dot = 0.0f;\n"
            "    for (int j = 0; j < n; ++j) dot += A[(size_t)row * n + j] * x[j];\n"
            "    y[row] = dot;\n"
            "  }\n"
            "}\n",
            {{"A", "read", "n*threadIdx.x + blockDim.x*n*blockIdx.x + j", kLoop, "uncoalesced", ""},
             {"x", "read", "j", kLoop, "uniform", "threads along x, blocks along x"},
             {"y", "write", "threadIdx.x + blockDim.x*blockIdx.x", kIds, "coalesced", ""}}},
        // A grid-stride loop: the iterator starts at the thread's index and steps by the grid;
        // a local pointer into a parameter keeps its offset; a read-modify-write; a constant.
        Case{"grid_stride",
             "__global__ void s(float* a, const float* b, const int* lut, int n, int off) {\n"
             "  const float* shifted = b + off;\n"
             "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
             "       i += blockDim.x * gridDim.x) {\n"
             "    a[i] += shifted[i] * 2.0f + lut[3];\n"
             "  }\n"
             "}\n",
             {{"a", "read+write", "threadIdx.x + blockDim.x*blockIdx.x + blockDim.x*gridDim.x*i",
               kLoop, "coalesced", ""},
              {"b", "read", "threadIdx.x + blockDim.x*blockIdx.x + blockDim.x*gridDim.x*i + off",
               kLoop, "coalesced", ""},
              {"lut", "read", "3", "constant", "uniform", "threads along x, blocks along x"}}},
        // Indices the analysis cannot follow: data-dependent, a division, a variable assigned
        // under a condition.
        Case{"unknown",
             "__global__ void g(float* out, const float* in, const int* perm, int n) {\n"
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  int j = i;\n"
             "  if (n > 4) j = i + 1;\n"
             "  out[i] = in[perm[i]] + in[i / 2] + in[j];\n"
             "}\n",
             {{"out", "write", "threadIdx.x + blockDim.x*blockIdx.x", kIds, "coalesced", ""},
              {"in", "read", "?", "unknown", "unknown", ""},
              {"perm", "read", "threadIdx.x + blockDim.x*blockIdx.x", kIds, "coalesced", ""},
              {"in", "read", "?", "unknown", "unknown", ""},
              {"in", "read", "?", "unknown", "unknown", ""}}}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(AccessAnalysis, SharedMemoryAndLocalArraysAreNotGlobalAccesses) {
  const std::vector<AccessFact> facts = facts_of(
      "__global__ void k(float* out) {\n"
      "  __shared__ float tile[32];\n"
      "  float local[4] = {0, 0, 0, 0};\n"
      "  float* p = tile;\n"
      "  tile[threadIdx.x] = local[threadIdx.x % 4];\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = p[threadIdx.x ^ 1] + *p;\n"
      "}\n");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].array, "out");
  EXPECT_EQ(facts[0].place.str(), "k.cu:7:3");
}

TEST(AccessAnalysis, TheRulesDecisionsForTheTranspose) {
  const std::vector<AccessFact> facts =
      facts_of(test::engine_fixture("../../../bench/engine/transpose.cu").text);
  ASSERT_EQ(facts.size(), 2u);
  ASSERT_EQ(facts[0].decisions.size(), 2u);
  EXPECT_EQ(facts[0].decisions[0],
            "coalescing: uncoalesced, neighbouring threads in x are rows words apart");
  EXPECT_EQ(facts[0].decisions[1],
            "staging: stage_shared stages it through a shared tile (a cooperative, coalesced "
            "store after k.cu:6:3)");
  ASSERT_EQ(facts[1].decisions.size(), 1u);
  EXPECT_EQ(facts[1].decisions[0],
            "coalescing: coalesced, neighbouring threads in x touch neighbouring words");
}

TEST(AccessAnalysis, MergeDecisionsOfTheMatrixMultiply) {
  const std::vector<AccessFact> facts =
      facts_of(test::engine_fixture("../../../bench/engine/matmul.cu").text);
  ASSERT_EQ(facts.size(), 3u);
  EXPECT_EQ(facts[0].array, "A");
  EXPECT_EQ(shared_text(facts[0]), "threads along x, blocks along x");
  EXPECT_EQ(facts[0].decisions.back(),
            "merge: shared, so thread_merge_x, block_merge_x loads it once for the threads or "
            "blocks merged (thread merge in a register, block merge through shared memory)");
  EXPECT_EQ(facts[1].array, "B");
  EXPECT_EQ(facts[1].coalescing, "coalesced");
  EXPECT_EQ(shared_text(facts[1]), "threads along y, blocks along y");
  EXPECT_EQ(facts[2].array, "C");
  EXPECT_TRUE(facts[2].write);
  EXPECT_EQ(facts[2].decisions.size(), 1u);
}

TEST(AccessAnalysis, MatvecRowsAreUncoalescedAndStagedStripByStrip) {
  const std::vector<AccessFact> facts =
      facts_of(test::engine_fixture("../../../bench/engine/matvec.cu").text);
  ASSERT_EQ(facts.size(), 3u);
  ASSERT_EQ(facts[0].decisions.size(), 2u);
  EXPECT_EQ(facts[0].decisions[1],
            "staging: stage_shared stages it strip by strip through a shared tile (the loop at "
            "k.cu:6:5 strip-mined by stage_shared's value, each strip's tile loaded by the "
            "block, coalesced)");
  // x[j]: every thread of the warp reads the same word; the rule does not look at it.
  EXPECT_EQ(facts[1].array, "x");
  EXPECT_EQ(facts[1].coalescing, "uniform");
  for (const std::string& decision : facts[1].decisions) {
    EXPECT_EQ(decision.rfind("staging:", 0), std::string::npos) << decision;
  }
}

TEST(AccessAnalysis, TheMatrixMultiplysReusedReadsAreStagedStripByStrip) {
  const std::vector<AccessFact> facts =
      facts_of(test::engine_fixture("../../../bench/engine/matmul.cu").text);
  ASSERT_EQ(facts.size(), 3u);
  for (int i : {0, 1}) {
    ASSERT_GE(facts[i].decisions.size(), 2u) << facts[i].array;
    EXPECT_EQ(facts[i].decisions[1].rfind("staging: stage_shared stages it strip by strip", 0), 0u)
        << facts[i].decisions[1];
  }
}

}  // namespace
}  // namespace gputune::engine
