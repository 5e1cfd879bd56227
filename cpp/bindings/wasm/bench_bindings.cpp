// Bindings the benchmark and the kernel tests need beside the lab's API: the
// random projections forward() uses (so tfjs and plain JS can compute the same
// attention), the size of wasm memory (memory only grows, so this is its peak), and
// the switch to the training's plain loops (train_kernels::set_reference: the
// bench's "before", in a page Worker through the link's kernels=reference).
#include <emscripten/bind.h>

#include "convert.hpp"
#include "poslab/attention.hpp"
#include "poslab/model.hpp"
#include "poslab/train_kernels.hpp"

namespace poslab::wasm {
namespace {

val attention_weights_js(val options) {
    return guarded([&] {
        Options in(options, "attentionWeights", {"dModel", "seed"});
        if (!in.has("dModel")) throw InvalidArgument("missing_option", "attentionWeights needs dModel");
        const std::size_t d_model = in.whole("dModel", 0, static_cast<double>(kMaxDModel));
        if (d_model < 1)
            throw InvalidArgument("bad_d_model", "attentionWeights: dModel must be from 1 to " +
                                                     std::to_string(kMaxDModel) + ", got 0");
        // The same draw forward() makes for weights 'random' with this seed.
        const AttentionWeights w = make_attention_weights(WeightsKind::random, d_model, in.seed("seed", 0));
        val out = val::object();
        out.set("wq", matrix(w.wq));
        out.set("wk", matrix(w.wk));
        out.set("wv", matrix(w.wv));
        out.set("wo", matrix(w.wo));
        return out;
    });
}

val wasm_memory_bytes_js(val) {
    return val(static_cast<double>(__builtin_wasm_memory_size(0)) * 65536.0);
}

// on: true runs the training's plain loops (the reference), false the kernels.
// Returns whether the reference is on now. Anything but a boolean is refused.
val train_kernels_reference_js(val on) {
    return guarded([&] {
        if (!on.isUndefined()) {
            if (on.typeOf().as<std::string>() != "boolean")
                throw InvalidArgument("bad_option_type",
                                      "trainKernelsReference takes true or false, got " + js_type(on),
                                      {{"option", "on"}});
            train_kernels::set_reference(on.as<bool>());
        }
        return val(train_kernels::reference());
    });
}

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_bench) {
    using namespace poslab::wasm;
    emscripten::function("raw_attentionWeights", &attention_weights_js);
    emscripten::function("raw_wasmMemoryBytes", &wasm_memory_bytes_js);
    emscripten::function("raw_trainKernelsReference", &train_kernels_reference_js);
}
