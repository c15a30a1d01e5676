// The run-time selector's tiers, layers, overrides and bad input, on release files written
// table by table (support/release_writer.h) and devices described without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "gputune/runtime.h"
#include "support/release_writer.h"

namespace gputune::runtime {
namespace {

namespace fs = std::filesystem;
using testing::ReleaseWriter;

// n must be a multiple of the tile; a block is TILE * V threads; 4 * TILE * TILE shared bytes.
const char kSpec[] = R"json({"problem": {"n": 1024},
  "parameters": {"TILE": [8, 16, 32, 64], "V": [1, 2, 4], "order": ["row", "swizzle8"]},
  "constraints": ["n % TILE == 0", "TILE * V <= 256"],
  "launch": [{"kernel": "tile<TILE>", "grid": ["ceil(n / TILE)"], "block": ["TILE * V"],
              "shared_bytes": "4 * TILE * TILE"}],
  "baseline": {"TILE": 8, "V": 1, "order": "row"}})json";

std::string config(int tile, int v, const char* order = "row") {
  return "{\"TILE\":" + std::to_string(tile) + ",\"V\":" + std::to_string(v) + ",\"order\":\"" +
         order + "\"}";
}

std::string problem(int n) { return "{\"n\":" + std::to_string(n) + "}"; }

DeviceDescription h100() { return DeviceDescription::described("NVIDIA H100", 9, 0, 132); }

class SelectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gputune_runtime_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A shipped file: the H100 tuned at n = 1024 and 4096.
  std::string shipped() {
    const std::string file = path("shipped.gtrel");
    ReleaseWriter w(file);
    const int64_t k = w.kernel("tile", kSpec);
    const int64_t d = w.device("NVIDIA H100", 9, 0, 132);
    w.config(k, config(8, 1), true);
    w.choice(k, d, problem(1024), 0, w.config(k, config(64, 2)), 0.5);
    w.choice(k, d, problem(1024), 1, w.config(k, config(32, 2)), 0.51);
    w.choice(k, d, problem(4096), 0, w.config(k, config(32, 4, "swizzle8")), 2.0);
    return file;
  }

  fs::path dir_;
};

TEST_F(SelectorTest, ExactTierAnswersWithTheStoredBestAndItsGeometry) {
  const Selector selector = Selector::open({shipped()});
  const Selection s = selector.select("tile", {{"n", 1024}}, h100());
  EXPECT_EQ(s.tier, Tier::kExact) << s.explanation;
  EXPECT_EQ(s.number("TILE"), 64);
  EXPECT_EQ(s.number("V"), 2);
  EXPECT_EQ(s.text("order"), "row");
  EXPECT_DOUBLE_EQ(s.distance, 0);
  EXPECT_DOUBLE_EQ(s.predicted_ms, 0.5);
  EXPECT_EQ(s.layer, path("shipped.gtrel"));
  ASSERT_EQ(s.launches.size(), 1u);
  EXPECT_EQ(s.launches[0].kernel, "tile<64>");
  EXPECT_EQ(s.launches[0].grid[0], 16u);
  EXPECT_EQ(s.launches[0].block[0], 128u);
  EXPECT_EQ(s.launches[0].dynamic_shared_bytes, 4u * 64 * 64);
  EXPECT_FALSE(s.has_code());
  EXPECT_TRUE(selector.warnings().empty());
  EXPECT_NE(s.explanation.find("override: none matches"), std::string::npos) << s.explanation;
}

TEST_F(SelectorTest, NearestProblemUsesTheLogRatioDistance) {
  const Selector selector = Selector::open({shipped()});
  // 3072 is nearer 4096 than 1024 in log ratio (ln 4/3 < ln 3).
  const Selection s = selector.select("tile", {{"n", 3072}}, h100());
  EXPECT_EQ(s.tier, Tier::kNearestProblem);
  EXPECT_EQ(s.number("TILE"), 32);
  EXPECT_EQ(s.text("order"), "swizzle8");
  EXPECT_NEAR(s.distance, std::log(4096.0 / 3072.0), 1e-12);
  EXPECT_NE(s.explanation.find("exact:"), std::string::npos) << s.explanation;
  EXPECT_EQ(s.problem.at("n"), 3072);
}

// One block per SM (150000 shared bytes), a block per W elements: 132 blocks fill an H100.
const char kWaveSpec[] = R"json({"problem": {"n": 8448},
  "parameters": {"W": [8, 16, 32, 48, 64, 128]},
  "launch": [{"kernel": "k", "grid": ["ceil(n / W)"], "block": ["256"],
              "shared_bytes": "150000"}],
  "baseline": {"W": 8}})json";

TEST_F(SelectorTest, NearestProblemWeighsTheLaunchFillOfNearbyPoints) {
  const std::string file = path("waves.gtrel");
  {
    ReleaseWriter w(file);
    const int64_t k = w.kernel("waves", kWaveSpec);
    const int64_t d = w.device("NVIDIA H100", 9, 0, 132);
    auto width = [&](int v) { return w.config(k, "{\"W\":" + std::to_string(v) + "}"); };
    w.choice(k, d, "{\"n\":8448}", 0, width(64), 0.50);  // 132 blocks: one full wave
    w.choice(k, d, "{\"n\":8448}", 1, width(128), 0.90);
    w.choice(k, d, "{\"n\":6336}", 0, width(48), 0.40);  // 132 blocks too
    w.choice(k, d, "{\"n\":1056}", 0, width(8), 0.10);   // beyond the window
  }
  const Selector selector = Selector::open({file});
  // At 8512 the nearest point's best launches 133 blocks: a second wave of one block (fill
  // 0.504). 6336's best launches 178 (fill 0.674): estimated regret 1.48 against 1.98.
  const Selection s = selector.select("waves", {{"n", 8512}}, h100());
  EXPECT_EQ(s.tier, Tier::kNearestProblem) << s.explanation;
  EXPECT_EQ(s.number("W"), 48) << s.explanation;
  EXPECT_NEAR(s.distance, std::log(8512.0 / 6336.0), 1e-12);
  EXPECT_DOUBLE_EQ(s.predicted_ms, 0.40);
  ASSERT_EQ(s.launches.size(), 1u);
  EXPECT_EQ(s.launches[0].grid[0], 178u);
  EXPECT_NE(s.explanation.find("rank 0 at n=6336, 0.4 ms there; estimated regret here 1.483"),
            std::string::npos)
      << s.explanation;
  EXPECT_NE(s.explanation.find("over the nearest point's rank 0 at n=8448"), std::string::npos)
      << s.explanation;
  // At 8400 the nearest point's best fills the GPU (132 blocks) and keeps the answer.
  const Selection kept = selector.select("waves", {{"n", 8400}}, h100());
  EXPECT_EQ(kept.number("W"), 64) << kept.explanation;
  EXPECT_EQ(kept.explanation.find("over the nearest"), std::string::npos) << kept.explanation;
}

TEST_F(SelectorTest, AStoredConfigInvalidAtTheTargetIsAMiss) {
  const Selector selector = Selector::open({shipped()});
  // 1056 = 33 * 32: the nearest point's rank 0 (TILE 64) is invalid, its rank 1 (TILE 32) not.
  const Selection s = selector.select("tile", {{"n", 1056}}, h100());
  EXPECT_EQ(s.tier, Tier::kNearestProblem);
  EXPECT_EQ(s.number("TILE"), 32);
  EXPECT_EQ(s.number("V"), 2);
  // 1000 = 8 * 125: no stored config is valid anywhere; the baseline (TILE 8) is.
  const Selection d = selector.select("tile", {{"n", 1000}}, h100());
  EXPECT_EQ(d.tier, Tier::kDefault);
  EXPECT_EQ(d.number("TILE"), 8);
  EXPECT_NE(d.explanation.find("invalid here"), std::string::npos) << d.explanation;
}

TEST_F(SelectorTest, DeviceLimitsMakeAConfigInvalid) {
  const Selector selector = Selector::open({shipped()});
  DeviceDescription small = h100();
  small.max_shared_bytes_per_block = 8 * 1024;  // TILE 64 needs 16 KiB, TILE 32 4 KiB
  const Selection s = selector.select("tile", {{"n", 1024}}, small);
  EXPECT_EQ(s.tier, Tier::kExact);
  EXPECT_EQ(s.number("TILE"), 32);
  small.max_threads_per_block = 32;
  const Selection t = selector.select("tile", {{"n", 1024}}, small);
  EXPECT_EQ(t.tier, Tier::kDefault);
}

TEST_F(SelectorTest, SameFamilyTakesTheNearestSmCount) {
  const std::string file = path("family.gtrel");
  {
    ReleaseWriter w(file);
    const int64_t k = w.kernel("tile", kSpec);
    const int64_t far = w.device("NVIDIA H100 PCIe", 9, 0, 114);
    const int64_t near = w.device("NVIDIA H200", 9, 0, 132);
    const int64_t other = w.device("NVIDIA A100", 8, 0, 132);
    w.choice(k, far, problem(1024), 0, w.config(k, config(16, 1)), 1.0);
    w.choice(k, near, problem(2048), 0, w.config(k, config(32, 1)), 1.0);
    w.choice(k, other, problem(1024), 0, w.config(k, config(64, 1)), 1.0);
  }
  const Selector selector = Selector::open({file});
  const Selection s = selector.select("tile", {{"n", 1024}}, h100());
  EXPECT_EQ(s.tier, Tier::kSameFamily);
  EXPECT_EQ(s.number("TILE"), 32);  // the H200's, 132 SMs like the H100
  EXPECT_NEAR(s.distance, std::log(2.0), 1e-12);
  EXPECT_NE(s.explanation.find("no results for this device"), std::string::npos);
}

TEST_F(SelectorTest, ModelTierRanksValidKeptConfigsOnAnUnseenArchitecture) {
  const std::string file = path("model.gtrel");
  {
    ReleaseWriter w(file);
    const int64_t k = w.kernel("tile", kSpec);
    const int64_t d = w.device("NVIDIA A100", 8, 0, 108);
    w.config(k, config(8, 1), true);
    w.choice(k, d, problem(1024), 0, w.config(k, config(16, 2)), 1.0);
    w.config(k, config(32, 4));
    w.config(k, config(64, 1));
    // Time falls with TILE and grows with n.
    for (int n : {512, 1024, 2048, 4096}) {
      for (int tile : {8, 16, 32, 64}) {
        for (int v : {1, 2, 4}) {
          w.observation(k, d, problem(n), config(tile, v), n / 1024.0 * (1 + 64.0 / tile));
        }
      }
    }
  }
  const Selector selector = Selector::open({file});
  const DeviceDescription blackwell = DeviceDescription::described("NVIDIA B200", 10, 0, 148);
  const Selection s = selector.select("tile", {{"n", 2048}}, blackwell);
  EXPECT_EQ(s.tier, Tier::kModel) << s.explanation;
  EXPECT_EQ(s.number("TILE"), 64);
  EXPECT_GT(s.predicted_ms, 0);
  EXPECT_NE(s.explanation.find("same_family: "), std::string::npos) << s.explanation;
  // A problem where TILE 64 is invalid: the model's best valid one.
  const Selection t = selector.select("tile", {{"n", 2080}}, blackwell);  // 65 * 32
  EXPECT_EQ(t.tier, Tier::kModel);
  EXPECT_EQ(t.number("TILE"), 32);
}

TEST_F(SelectorTest, DefaultTierWithoutResultsOrObservations) {
  const Selector selector = Selector::open({shipped()});
  const Selection s =
      selector.select("tile", {{"n", 1024}}, DeviceDescription::described("X", 7, 5, 40));
  EXPECT_EQ(s.tier, Tier::kDefault);
  EXPECT_EQ(s.number("TILE"), 8);
  EXPECT_NE(s.explanation.find("model: "), std::string::npos) << s.explanation;
  const Selection unknown = selector.select("nothing", {}, h100());
  EXPECT_EQ(unknown.tier, Tier::kDefault);
  EXPECT_TRUE(unknown.config.empty());
}

TEST_F(SelectorTest, TiersComeBeforeLayersAndTheFirstLayerWinsWithinATier) {
  const std::string user = path("user.gtrel");
  {
    ReleaseWriter w(user);
    const int64_t k = w.kernel("tile", kSpec);
    const int64_t d = w.device("NVIDIA H100", 9, 0, 132);
    w.choice(k, d, problem(2048), 0, w.config(k, config(16, 4)), 0.7);
    w.choice(k, d, problem(16384), 0, w.config(k, config(8, 4)), 0.7);
  }
  const Selector selector = Selector::open({user, shipped()});
  const Selection exact = selector.select("tile", {{"n", 1024}}, h100());
  EXPECT_EQ(exact.tier, Tier::kExact);  // the shipped exact beats the user's nearest
  EXPECT_EQ(exact.layer, path("shipped.gtrel"));
  const Selection nearest = selector.select("tile", {{"n", 3072}}, h100());
  EXPECT_EQ(nearest.tier, Tier::kNearestProblem);
  EXPECT_EQ(nearest.layer, user);  // the user's 2048 answers though shipped 4096 is nearer
  EXPECT_EQ(nearest.number("TILE"), 16);
}

TEST_F(SelectorTest, OverridesWinWhereValid) {
  const std::string user = path("user.gtrel");
  {
    ReleaseWriter w(user);
    // A user file of overrides only: the kernel's rules come from the shipped file.
    w.override_config("tile", "*", "*", "{\"TILE\":16}");
  }
  Selector selector = Selector::open({user, shipped()});
  const Selection file_override = selector.select("tile", {{"n", 1024}}, h100());
  EXPECT_EQ(file_override.tier, Tier::kOverride);
  EXPECT_EQ(file_override.layer, user);
  EXPECT_EQ(file_override.number("TILE"), 16);
  EXPECT_EQ(file_override.number("V"), 1);  // the rest from the baseline

  selector.add_override({"tile", {{"TILE", "32"}, {"V", "2"}}, "NVIDIA H100", {{"n", 1024}}});
  const Selection in_memory = selector.select("tile", {{"n", 1024}}, h100());
  EXPECT_EQ(in_memory.tier, Tier::kOverride);
  EXPECT_EQ(in_memory.layer, "override");
  EXPECT_EQ(in_memory.number("TILE"), 32);
  // Not for this problem: the file's override again.
  EXPECT_EQ(selector.select("tile", {{"n", 2048}}, h100()).number("TILE"), 16);
  // An override invalid at the problem is a miss: 1000 is no multiple of 16 or 32.
  const Selection invalid = selector.select("tile", {{"n", 1000}}, h100());
  EXPECT_NE(invalid.tier, Tier::kOverride);
  EXPECT_NE(invalid.explanation.find("override: the override"), std::string::npos)
      << invalid.explanation;
}

TEST_F(SelectorTest, BadFilesGiveTheDefaultTierAndOneWarningEach) {
  const std::string missing = path("missing.gtrel");
  const std::string truncated = path("truncated.gtrel");
  const std::string foreign = path("foreign.gtrel");
  const std::string newer = path("newer.gtrel");
  const std::string text = path("text.gtrel");
  {
    const std::string good = shipped();
    const auto size = fs::file_size(good);
    fs::copy_file(good, truncated);
    fs::resize_file(truncated, size / 3);
    ReleaseWriter(foreign, 0x12345678);
    ReleaseWriter(newer, 0x47545245, 2);
    std::ofstream(text) << "not a database at all, just text that is long enough to be read";
  }
  for (const std::string& file : {missing, truncated, foreign, newer, text}) {
    const Selector selector = Selector::open({file});
    const Selection s = selector.select("tile", {{"n", 1024}}, h100());
    EXPECT_EQ(s.tier, Tier::kDefault) << file;
    ASSERT_EQ(selector.warnings().size(), 1u) << file;
    EXPECT_NE(selector.warnings()[0].find(file), std::string::npos);
    EXPECT_THROW(Selector::open({file}, Options{true}), RuntimeError) << file;
  }
  auto cause = [](const std::string& file) { return Selector::open({file}).warnings().at(0); };
  EXPECT_NE(cause(missing).find("not found"), std::string::npos);
  EXPECT_NE(cause(truncated).find("truncated or corrupt"), std::string::npos) << cause(truncated);
  EXPECT_NE(cause(foreign).find("not a gputune release database"), std::string::npos);
  EXPECT_NE(cause(newer).find("newer schema"), std::string::npos);
  // A bad layer does not hide a good one.
  const Selector both = Selector::open({missing, shipped()});
  EXPECT_EQ(both.select("tile", {{"n", 1024}}, h100()).tier, Tier::kExact);
}

// One bad row must not stop an application (it aborted: a type_error escaped select): a lazily
// read observation that is not an object, a launch whose kernel is not a string. Lenient
// select answers from what it can read and warns once; strict throws RuntimeError naming the
// file, and nothing else.
TEST_F(SelectorTest, ABadRowIsAMissNeverAThrow) {
  const std::string file = path("bad_rows.gtrel");
  std::string spec = kSpec;
  {
    ReleaseWriter w(file);
    const int64_t k = w.kernel("tile", spec);
    std::string broken = spec;
    broken.replace(broken.find("\"kernel\": \"tile<TILE>\""), 21, "\"kernel\": 7");
    w.kernel("other", broken);
    const int64_t d = w.device("NVIDIA A100", 8, 0, 108);
    w.config(k, config(8, 1), true);
    w.choice(k, d, problem(1024), 0, w.config(k, config(16, 2)), 1.0);
    for (int i = 0; i < 12; ++i) w.observation(k, d, "[1024]", config(16, 2), 1.0 + i);
  }
  const DeviceDescription blackwell = DeviceDescription::described("NVIDIA B200", 10, 0, 148);
  const Selector lenient = Selector::open({file});
  Selection s;
  ASSERT_NO_THROW(s = lenient.select("tile", {{"n", 2048}}, blackwell));
  EXPECT_EQ(s.tier, Tier::kDefault) << s.explanation;
  EXPECT_EQ(s.number("TILE"), 8);
  ASSERT_NO_THROW(s = lenient.select("other", {{"n", 1024}}, h100()));
  EXPECT_TRUE(s.config.empty());
  const std::vector<std::string> warnings = lenient.warnings();
  ASSERT_EQ(warnings.size(), 2u);
  for (const std::string& w : warnings) EXPECT_NE(w.find(file), std::string::npos) << w;
  const Selector strict = Selector::open({file}, Options{true});
  EXPECT_THROW(strict.select("tile", {{"n", 2048}}, blackwell), RuntimeError);
  EXPECT_THROW(strict.select("other", {{"n", 1024}}, h100()), RuntimeError);
}

// A path or a symbol need not be UTF-8; select --json threw (exit 70).
TEST_F(SelectorTest, JsonOfTextThatIsNotUtf8) {
  Selection s;
  s.layer = "/data/\xff\xfe.gtrel";
  s.explanation = "answered by default";
  const std::string json = s.to_json();
  EXPECT_NE(json.find("\"layer\""), std::string::npos);
}

TEST_F(SelectorTest, ASourceHashMismatchSkipsTheLayerWithAWarning) {
  const Selector selector = Selector::open({shipped()});
  const Selection s = selector.select("tile", {{"n", 1024}}, h100(), "other-hash");
  EXPECT_EQ(s.tier, Tier::kDefault);
  ASSERT_EQ(selector.warnings().size(), 1u);
  EXPECT_NE(selector.warnings()[0].find("source hash"), std::string::npos);
  EXPECT_EQ(selector.select("tile", {{"n", 1024}}, h100(), "source-1").tier, Tier::kExact);
  const Selector strict = Selector::open({shipped()}, Options{true});
  EXPECT_THROW(strict.select("tile", {{"n", 1024}}, h100(), "other-hash"), RuntimeError);
}

TEST_F(SelectorTest, AnUnknownProblemValueIsAWarningNotACrash) {
  const Selector selector = Selector::open({shipped()});
  const Selection s = selector.select("tile", {{"m", 5}}, h100());
  EXPECT_EQ(s.tier, Tier::kDefault);
  ASSERT_EQ(selector.warnings().size(), 1u);
  EXPECT_NE(selector.warnings()[0].find("'m'"), std::string::npos);
}

TEST_F(SelectorTest, JsonCarriesTheAnswer) {
  const Selector selector = Selector::open({shipped()});
  const std::string json = selector.select("tile", {{"n", 1024}}, h100()).to_json();
  EXPECT_NE(json.find("\"config\":{\"TILE\":64,\"V\":2,\"order\":\"row\"}"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"tier\":\"exact\""), std::string::npos);
  EXPECT_NE(json.find("\"grid\":[16,1,1]"), std::string::npos);
}

TEST_F(SelectorTest, LoadingWithoutCodeSaysHowToEmbedIt) {
  const Selector selector = Selector::open({shipped()});
  const Selection s = selector.select("tile", {{"n", 1024}}, h100());
  try {
    s.load();
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("--embed sm_90"), std::string::npos) << e.what();
  }
}

TEST_F(SelectorTest, EmbeddedCodeIsOfferedAndLoadsOnlyForALiveDevice) {
  const std::string file = path("code.gtrel");
  {
    ReleaseWriter w(file);
    const int64_t k = w.kernel("tile", kSpec);
    const int64_t d = w.device("NVIDIA H100", 9, 0, 132);
    const int64_t with_code = w.config(k, config(64, 2));
    w.choice(k, d, problem(1024), 0, with_code, 0.5);
    w.choice(k, d, problem(4096), 0, w.config(k, config(32, 1)), 0.5);
    w.code(with_code, "sm_90", "cubin", "tile_64",
           std::string("\x7f"
                       "ELF\0\1",
                       6));
  }
  const Selector selector = Selector::open({file});
  const Selection s = selector.select("tile", {{"n", 1024}}, h100());
  EXPECT_TRUE(s.has_code());
  EXPECT_NE(s.to_json().find("\"has_code\":true"), std::string::npos);
  try {
    s.load();
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("described device"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(selector.select("tile", {{"n", 4096}}, h100()).has_code());
}

}  // namespace
}  // namespace gputune::runtime
