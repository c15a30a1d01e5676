#include "cluster/rank_link.h"

#include "core/wire.h"

namespace gputune {

std::string hello_payload(const RankHello& hello) {
  wire::Writer w;
  w.u32(static_cast<uint32_t>(hello.rank)).str(hello.host);
  wire::put(w, hello.device);
  w.u32(hello.slots);
  return w.take();
}

RankHello read_hello(const std::string& payload) {
  wire::Reader r(payload);
  RankHello hello;
  hello.rank = static_cast<int>(r.u32());
  hello.host = r.str();
  wire::get(r, &hello.device);
  hello.slots = r.u32();
  return hello;
}

}  // namespace gputune
