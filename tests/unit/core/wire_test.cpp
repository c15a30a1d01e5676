#include <gtest/gtest.h>

#include "core/wire.h"
#include "support/measurement_fields.h"

namespace gputune {
namespace {

TEST(IpcMeasurement, EveryListedFieldRoundTrips) {
  const Measurement m = testing::every_field_set();
  wire::Writer w;
  wire::put(w, m);
  const std::string data = w.take();
  wire::Reader r(data);
  Measurement back;
  wire::get(r, &back);
  EXPECT_TRUE(r.at_end());
  testing::expect_fields(m, back, testing::every_field);
}

TEST(IpcMeasurement, ATruncatedMeasurementThrows) {
  wire::Writer w;
  wire::put(w, testing::every_field_set());
  const std::string data = w.data().substr(0, w.data().size() - 1);
  wire::Reader r(data);
  Measurement back;
  EXPECT_THROW(wire::get(r, &back), Error);
}

}  // namespace
}  // namespace gputune
