#include "model/cost_model.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "gputune/error.h"
#include "model/features.h"
#include "spec/spec_loader.h"
#include "support/synthetic_recording.h"

namespace gputune {
namespace {

double smooth(double a, double b) { return std::sin(2 * a) + 0.5 * b * b; }

void sample(int n, uint64_t seed, Eigen::MatrixXd* x, Eigen::VectorXd* y) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  x->resize(n, 2);
  y->resize(n);
  for (int i = 0; i < n; ++i) {
    (*x)(i, 0) = u(rng);
    (*x)(i, 1) = u(rng);
    (*y)(i) = smooth((*x)(i, 0), (*x)(i, 1));
  }
}

TEST(GaussianProcess, PredictsHeldOutPointsOfASmoothFunctionBetterThanTheMean) {
  Eigen::MatrixXd train, test;
  Eigen::VectorXd y_train, y_test;
  sample(60, 1, &train, &y_train);
  sample(200, 2, &test, &y_test);
  for (GpKernel kernel : {GpKernel::kMatern52, GpKernel::kRbf}) {
    GpOptions options;
    options.kernel = kernel;
    GaussianProcess gp(options);
    gp.fit(train, y_train);
    Eigen::VectorXd mean, stddev;
    gp.predict(test, &mean, &stddev);
    const double rmse = std::sqrt((mean - y_test).squaredNorm() / 200);
    const double baseline = std::sqrt((y_test.array() - y_train.mean()).square().mean());
    EXPECT_LT(rmse, 0.25 * baseline) << "rmse " << rmse << " vs the mean's " << baseline;
    // Uncertainty is small where there is data and large far from it.
    Eigen::VectorXd at_train, far;
    gp.predict(train.topRows(5), nullptr, &at_train);
    gp.predict(Eigen::MatrixXd::Constant(1, 2, 9.0), nullptr, &far);
    EXPECT_LT(at_train.maxCoeff(), far(0) / 3);
  }
}

TEST(GaussianProcess, NoisyDataSelectsALargerNoiseTerm) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  sample(80, 3, &x, &y);
  GaussianProcess clean, noisy;
  clean.fit(x, y);
  std::mt19937_64 rng(4);
  std::normal_distribution<double> noise(0, 0.5);
  Eigen::VectorXd y_noisy = y;
  for (int i = 0; i < y.size(); ++i) y_noisy(i) += noise(rng);
  noisy.fit(x, y_noisy);
  EXPECT_GT(noisy.hyperparameters().noise, clean.hyperparameters().noise);
}

TEST(CandidatePosterior, AddingOneAtATimeMatchesARefit) {
  Eigen::MatrixXd candidates, x;
  Eigen::VectorXd unused, y;
  sample(300, 5, &candidates, &unused);
  sample(40, 6, &x, &y);
  CandidatePosterior incremental(GpKernel::kMatern52, candidates);
  incremental.set_hyperparameters({0.8, 1e-3});
  for (int i = 0; i < x.rows(); ++i) incremental.add(x.row(i));
  Eigen::VectorXd mean_a, sd_a, mean_b, sd_b;
  incremental.predict(y, &mean_a, &sd_a);
  incremental.set_hyperparameters({0.8, 1e-3});  // recomputes from scratch
  incremental.predict(y, &mean_b, &sd_b);
  EXPECT_LT((mean_a - mean_b).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((sd_a - sd_b).cwiseAbs().maxCoeff(), 1e-6);
  Eigen::VectorXd mean_c, sd_c;
  incremental.predict_points(candidates.topRows(10), y, &mean_c, &sd_c);
  EXPECT_LT((mean_c - mean_a.head(10)).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((sd_c - sd_a.head(10)).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Features, EncodeNumbersSymbolsAndProblemValues) {
  std::vector<Dimension> dims = {{"TILE", {int64_t{16}, int64_t{32}, int64_t{64}}, false},
                                 {"PAD", {int64_t{0}, int64_t{1}}, false},
                                 {"order", {std::string("row"), std::string("diagonal")}, true}};
  Scope problem;
  SearchSpace space(dims, {}, problem);
  FeatureMap map(space, {"n"});
  ASSERT_EQ(map.size(), 5u);
  EXPECT_EQ(map.names()[0], "log2(TILE)");
  EXPECT_EQ(map.names()[1], "PAD");
  EXPECT_EQ(map.names()[4], "log2(n)");
  const uint64_t index = space.encode({1, 1, 1});
  EXPECT_EQ(map.row(index, {4096}), (std::vector<double>{5, 1, 0, 1, 12}));
  auto from_json = map.row_from_json(space.json(index), {4096});
  ASSERT_TRUE(from_json.has_value());
  EXPECT_EQ(*from_json, map.row(index, {4096}));
  EXPECT_FALSE(map.row_from_json(R"({"TILE":16,"PAD":0,"order":"zigzag"})", {1}).has_value());
  EXPECT_FALSE(map.row_from_json(R"({"TILE":16,"PAD":0})", {1}).has_value());

  FeatureMap with_resources(space, {}, true);
  EXPECT_EQ(with_resources.size(), 8u);
  EXPECT_THROW(with_resources.row(index, {}), Error);
  ResourceUsage usage{32, 0, 0, 256};
  EXPECT_EQ(with_resources.row(index, {}, &usage).back(), 1.0);
}

TEST(Features, OccupancyFallsWithRegistersAndSharedMemory) {
  EXPECT_DOUBLE_EQ(occupancy_estimate({32, 0, 0, 256}), 1.0);
  EXPECT_DOUBLE_EQ(occupancy_estimate({64, 0, 0, 256}), 0.5);
  EXPECT_DOUBLE_EQ(occupancy_estimate({255, 0, 0, 256}), 0.125);
  EXPECT_DOUBLE_EQ(occupancy_estimate({32, 100 * 1024, 0, 256}), 0.25);
}

}  // namespace
}  // namespace gputune

namespace gputune {
namespace {

namespace fs = std::filesystem;

TEST(Geometry, ResidentBlocksFollowRegistersSharedMemoryAndThreads) {
  EXPECT_EQ(resident_blocks({128, 0, 0, 256}), 2);  // 128 x 256 registers of 65536
  EXPECT_EQ(resident_blocks({95, 0, 0, 256}), 2);   // 96 a thread after rounding
  EXPECT_EQ(resident_blocks({0, 0, 0, 256}), 8);    // not compiled: the thread limit
  EXPECT_EQ(resident_blocks({32, 0, 0, 64}), 32);   // the block limit
  EXPECT_EQ(resident_blocks({32, 60 * 1024, 0, 256}), 3);
  EXPECT_EQ(resident_blocks({32, 60 * 1024, 0, 256}, 60 * 1024), 1);  // dynamic counts too
  EXPECT_EQ(resident_blocks({32, 300 * 1024, 0, 256}), 1);  // never 0 for a launchable block
}

TEST(Geometry, WavesTailAndFillAcrossSmCounts) {
  const auto& names = geometry_feature_names();
  ASSERT_EQ(names.size(), 6u);
  // 256 blocks of 256 threads at 128 registers: two blocks an SM.
  const LaunchShape shape{256, 256, 0};
  const ResourceUsage registers{128, 0, 0, 0};
  std::vector<double> h200 = geometry_features(shape, &registers, 132);
  EXPECT_DOUBLE_EQ(h200[0], 8);     // log2 threads
  EXPECT_DOUBLE_EQ(h200[1], 8);     // log2 blocks
  EXPECT_DOUBLE_EQ(h200[2], 0.25);  // 2 x 256 of 2048 threads
  EXPECT_NEAR(h200[3], std::log2(256.0 / 264), 1e-12);
  EXPECT_NEAR(h200[4], 256.0 / 264, 1e-12);  // one wave, nearly full
  EXPECT_DOUBLE_EQ(h200[5], 1);
  // 114 SMs: 1.12 waves, the second almost empty.
  std::vector<double> fewer = geometry_features(shape, &registers, 114);
  EXPECT_NEAR(fewer[4], (256.0 / 228) / 2, 1e-12);
  // 512 SMs: half of them idle.
  std::vector<double> more = geometry_features(shape, &registers, 512);
  EXPECT_DOUBLE_EQ(more[5], 0.5);
  EXPECT_NEAR(more[4], 256.0 / 1024, 1e-12);
  // Not compiled anywhere: eight blocks an SM by the thread limit.
  EXPECT_NEAR(geometry_features(shape, nullptr, 132)[3], std::log2(256.0 / (132 * 8)), 1e-12);
}

TEST(Geometry, LaunchOfEvaluatesTheSpecAtAnyProblemValues) {
  const fs::path dir = fs::temp_directory_path() / ("gputune_geometry_" + std::to_string(getpid()));
  Problem problem(load_spec(testing::write_synthetic_spec(dir), {}));
  LaunchOf launch = launch_of(problem.spec());
  std::optional<uint64_t> index =
      index_from_json(problem.space(), R"({"TX":32,"TY":8,"UNROLL":2,"VEC":1,"PAD":0,)"
                                       R"("block_order":"diagonal"})");
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(problem.space().json(*index),
            R"({"TX":32,"TY":8,"UNROLL":2,"VEC":1,"PAD":0,"block_order":"diagonal"})");
  EXPECT_FALSE(index_from_json(problem.space(), R"({"TX":33,"TY":8,"UNROLL":2,"VEC":1,)"
                                                R"("PAD":0,"block_order":"row"})"));
  EXPECT_FALSE(index_from_json(problem.space(), R"({"TX":32})"));
  // grid [ceil(n / TX), ceil(n / TY)], block [TX, TY]
  auto at = [&](double n) { return launch(*index, {{"n", n}}); };
  ASSERT_TRUE(at(1024).has_value());
  EXPECT_DOUBLE_EQ(at(1024)->blocks, 32.0 * 128);
  EXPECT_DOUBLE_EQ(at(1024)->threads_per_block, 256);
  EXPECT_DOUBLE_EQ(at(4096)->blocks, 128.0 * 512);
  EXPECT_DOUBLE_EQ(at(1000)->blocks, 32.0 * 125);  // ragged: ceil
  // The same as the variant the problem itself builds.
  EXPECT_DOUBLE_EQ(launch_shape(problem.variant(*index)).blocks, at(1024)->blocks);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
