// The compact JSON text of a value on a parsed document's tape, for tests of what the decoder
// hands out (Message::body).
#pragma once

#include <string>

#include "mcp_native/json/writer.hpp"
#include "mcp_native/schema/text_views.hpp"

namespace mcp_native {

inline void write_tape(JsonWriter& w, tape::Value v) {
  using View = schema::TapeView;
  switch (tape::type(*v.w)) {
    case '[': {
      w.put('[');
      View::arr_each({}, v, [&](size_t i, tape::Value x) {
        if (i != 0) w.put(',');
        write_tape(w, x);
        return true;
      });
      w.put(']');
      break;
    }
    case '{': {
      w.put('{');
      bool first = true;
      View::obj_each({}, v, [&](std::string_view key, tape::Value x) {
        if (!first) w.put(',');
        first = false;
        w.write_string(key);
        w.put(':');
        write_tape(w, x);
        return true;
      });
      w.put('}');
      break;
    }
    case '"': w.write_string(View::str({}, v)); break;
    case 't': w.write_bool(true); break;
    case 'f': w.write_bool(false); break;
    case 'n': w.write_null(); break;
    default: {
      const schema::Num n = View::num({}, v);
      if (n.kind == schema::Num::Int)
        w.write_int(n.int64);
      else if (n.kind == schema::Num::UInt)
        w.write_uint(n.uint64);
      else
        w.write_double(n.number);
    }
  }
}

inline std::string tape_json(tape::Value v) {
  JsonWriter w;
  write_tape(w, v);
  return std::string(w.view());
}

}  // namespace mcp_native
