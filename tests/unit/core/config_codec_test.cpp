#include "core/config_codec.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gputune {
namespace {

TEST(ConfigCodec, WritesTheTextTheStoreHolds) {
  const Config config = {{"TILE", Value(int64_t{32})},
                         {"ALPHA", Value(0.1)},
                         {"SCALE", Value(2.0)},
                         {"block_order", Value(std::string("diagonal"))}};
  EXPECT_EQ(config_to_json(config),
            R"({"TILE":32,"ALPHA":0.1,"SCALE":2.0,"block_order":"diagonal"})");
  EXPECT_EQ(config_to_json({}), "{}");
}

TEST(ConfigCodec, ReadsBackTheSameValuesInOrder) {
  const std::string text = R"({"Z":-3,"A":0.1,"S":2.0,"order":"row","big":18446744073709551615})";
  const std::optional<Config> config = config_from_json(text);
  ASSERT_TRUE(config);
  ASSERT_EQ(config->size(), 5u);
  EXPECT_EQ((*config)[0].first, "Z");
  EXPECT_TRUE((*config)[0].second.is_integer());
  EXPECT_EQ((*config)[0].second.as_number(), -3);
  EXPECT_EQ((*config)[1].second, Value(0.1));
  EXPECT_EQ((*config)[2].second, Value(2.0));
  EXPECT_EQ((*config)[3].second, Value(std::string("row")));
  EXPECT_FALSE((*config)[4].second.is_integer());  // beyond int64: a real
  EXPECT_EQ(config_to_json(Config(config->begin(), config->begin() + 4)),
            R"({"Z":-3,"A":0.1,"S":2.0,"order":"row"})");
}

TEST(ConfigCodec, OtherJsonValuesAreSymbolsOfTheirText) {
  const std::optional<Config> config = config_from_json(R"({"flag":true,"none":null})");
  ASSERT_TRUE(config);
  EXPECT_EQ(symbol_text((*config)[0].second), "true");
  EXPECT_EQ(symbol_text((*config)[1].second), "null");
}

TEST(ConfigCodec, RefusesTextThatIsNotAnObject) {
  EXPECT_FALSE(config_from_json(""));
  EXPECT_FALSE(config_from_json("[1,2]"));
  EXPECT_FALSE(config_from_json("{\"A\":"));
  EXPECT_FALSE(problem_from_json("nonsense"));
}

TEST(ConfigCodec, FindsValuesByName) {
  const Config config = {{"A", Value(int64_t{1})}, {"B", Value(std::string("x"))}};
  ASSERT_NE(find_value(config, "B"), nullptr);
  EXPECT_EQ(*find_value(config, "B"), Value(std::string("x")));
  EXPECT_EQ(find_value(config, "C"), nullptr);
}

TEST(ConfigCodec, SymbolTextOfNumbersIsTheirJson) {
  EXPECT_EQ(symbol_text(Value(int64_t{8})), "8");
  EXPECT_EQ(symbol_text(Value(0.1)), "0.1");  // Value::text() would say 0.10000000000000001
  EXPECT_EQ(symbol_text(Value(std::string("row"))), "row");
}

TEST(ProblemCodec, IntegralValuesAreIntegers) {
  EXPECT_EQ(problem_to_json({{"n", 8192}, {"alpha", 0.5}, {"huge", 1e16}}),
            R"({"n":8192,"alpha":0.5,"huge":1e+16})");
}

TEST(ProblemCodec, ReadsNumbersInOrderAndSkipsTheRest) {
  const std::optional<ProblemValues> values =
      problem_from_json(R"({"m":1024,"label":"x","alpha":0.5})");
  ASSERT_TRUE(values);
  const ProblemValues expected = {{"m", 1024}, {"alpha", 0.5}};
  EXPECT_EQ(*values, expected);
  EXPECT_EQ(problem_to_json(*problem_from_json(R"({"n":4096,"k":3.25})")),
            R"({"n":4096,"k":3.25})");
}

}  // namespace
}  // namespace gputune
