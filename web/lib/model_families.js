// The table of model families: for each HF transformers model_type whose config carries positions, what HF does with
// them. One entry per family; modelPositions (model_positions.js) interprets the entries, the README's family table
// is checked against them by a test, and adding a family is adding an entry (and its test).
//
// Read from HF transformers' main branch (v5: `rope_parameters`, `@strict` config classes, `default_theta`) in
// November 2026, each family's configuration, modular and modeling files (the `source` of each entry); no HF code is
// copied: the entries state facts (key names, class defaults, layouts, rules).
//
// An entry:
//   kind      'rope' | 'alibi' | 't5' | 'learned' | 'sinusoidal' | 'none' (attention without positions)
//   layout    RoPE's pairing: 'half' (rotate_half: i, i + d/2) or 'interleaved' (2i, 2i + 1)
//   theta     the base a config without rope_theta gets (the class's default_theta, or its rope_theta default)
//   defaults  the config class's default for each other key that shapes positions: HF fills a missing key with it
//   head      the head size of q·k: 'head_dim' (head_dim, else hidden_size // num_attention_heads); 'hidden' (always
//             hidden_size // num_attention_heads: a head_dim in the file is not read); or the key that gives it
//   rotary    the key that makes RoPE partial: 'partial_rotary_factor' | 'rotary_pct' (fractions of the head) |
//             'rotary_dim' (a count); absent: the whole head turns. fixedPartial: the fraction the class sets;
//             partialOnScaledRules: the family's default rule turns the whole head all the same
//   base      the key of RoPE's base when not rope_theta ('rotary_emb_base'), or a number the family fixes
//   layerCount  where HF's config rewrites num_hidden_layers: { perStack (the key that, once set, says the file's
//             count is already the total), times: keys (or [key, plus]) multiplying the file's per-stack count }
//   layers    which layers get which positions (see LAYER_RULES in model_positions.js): `types` derives each layer's
//             type when the file has no layer_types, `none` lists the types without positions, `local` the types on
//             the local base (`localTheta`, default `localDefault`) with the plain rule, `when` the key without which
//             the `none` types do have positions, `enabledBy` a key and value without which no layer has positions
//   scores    what multiplies q·k when not head**-0.5: { key } (a config key, e.g. attention_multiplier), { key,
//             power } (query_pre_attn_scalar**-0.5), { value }, 'mla' (DeepSeek-V3: qk head**-0.5 × mscale²),
//             { keyMultiplier } (Falcon-H1's keys scaled by key_multiplier)
//   cache     what the model does with its cos/sin cache: 'cast' (to the model's dtype), 'float32' (kept in float32),
//             'complex64' (a complex float32 freqs_cis): precision modes cast only where the model does
//   rotation  'reversed' where the model turns by −angle (its rotate_half is the negation of Llama's)
//   masks     keys the family reads for its attention masks only (not positions): no warning when present
//   aliases   HF's attribute_map: a standard size key read under the family's own name ({ hidden_size: 'dim' })
//   attentionWidth  the key of the width its heads divide, where not hidden_size (MobileBERT's bottleneck)
//   follows   the family whose attention and rotary code it follows, named in warnings
//   source    the HF files read
//
// Non-RoPE kinds: learned { offset: n | 'padding' (pad_token_id + 1), tableKey }, sinusoidal { timescale, layout,
// offset: n | 'padding' }, alibi { slopes: 'bloom' | 'mpt' }, t5 { decoderOnly: a decoder's num_layers blocks and no encoder }.

const V5 = '(transformers main, v5)';
const rope = (entry) => ({ kind: 'rope', layout: 'half', cache: 'cast', theta: 10000, head: 'head_dim', ...entry });

// Layer-type derivations shared by several families.
const everyNth = (n, key, at, other, extra = {}) => ({ every: key, n, at, other, ...extra });
const GEMMA3_LAYERS = (n, key) => ({ types: everyNth(n, key, 'full_attention', 'sliding_attention'), local: ['sliding_attention'], localTheta: 'rope_local_base_freq', localDefault: 10000 });
const NOPE_ON_FULL = (n, key) => ({ types: everyNth(n, key, 'full_attention', 'sliding_attention'), none: ['full_attention'] });
// EXAONE 4: no positions on the full layers, where a sliding window makes the others sliding.
const EXAONE4_LAYERS = { ...NOPE_ON_FULL(4, 'sliding_window_pattern'), when: 'sliding_window' };
// MLA (DeepSeek's attention): RoPE on a slice of the head (qk_rope_head_dim), interleaved, scores × mscale².
const mla = (entry) => rope({ layout: 'interleaved', head: 'qk_rope_head_dim', scores: 'mla', follows: 'deepseek_v3', ...entry });

// HF's attribute_map of the encoder-decoder families (BART's and its kin): their sizes under their encoder's names.
const ENCODER_SIZES = { num_attention_heads: 'encoder_attention_heads', num_hidden_layers: 'encoder_layers' };

export const FAMILIES = {
  // Llama and the families that read positions as it does: every layer, the whole head, half layout.
  llama: rope({ defaults: { max_position_embeddings: 2048 }, source: `llama/configuration_llama.py, modeling_llama.py ${V5}` }),
  mistral: rope({ defaults: { max_position_embeddings: 131072 }, follows: 'llama', source: `mistral/configuration_mistral.py ${V5}` }),
  mixtral: rope({ theta: 1e6, defaults: { max_position_embeddings: 131072 }, follows: 'mistral', source: `mixtral/configuration_mixtral.py ${V5}` }),
  ministral: rope({ defaults: { max_position_embeddings: 131072 }, masks: ['layer_types'], follows: 'qwen2', source: `ministral/modular_ministral.py ${V5}` }),
  ministral3: rope({
    theta: 1e6, follows: 'mistral', source: `ministral3/configuration_ministral3.py, modular_ministral3.py ${V5}`,
    defaults: {
      max_position_embeddings: 262144, head_dim: 128,
      rope_parameters: { type: 'yarn', rope_theta: 1e6, factor: 16, original_max_position_embeddings: 16384, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1, llama_4_scaling_beta: 0.1 },
    },
  }),
  qwen2: rope({ defaults: { max_position_embeddings: 32768 }, masks: ['layer_types'], follows: 'llama', source: `qwen2 (as qwen3's v5 config; modeling shared with ministral, smollm3) ${V5}` }),
  qwen2_moe: rope({ defaults: { max_position_embeddings: 32768 }, masks: ['layer_types'], follows: 'qwen2', source: `qwen2_moe/configuration_qwen2_moe.py ${V5}` }),
  qwen3: rope({ defaults: { max_position_embeddings: 32768, head_dim: 128 }, masks: ['layer_types'], follows: 'qwen2', source: `qwen3/configuration_qwen3.py ${V5}` }),
  qwen3_moe: rope({ defaults: { max_position_embeddings: 32768 }, follows: 'qwen3', source: `qwen3_moe/configuration_qwen3_moe.py ${V5}` }),
  qwen3_next: rope({
    defaults: { max_position_embeddings: 32768, head_dim: 256, partial_rotary_factor: 0.25 }, rotary: 'partial_rotary_factor',
    layers: { types: everyNth(4, 'full_attention_interval', 'full_attention', 'linear_attention'), none: ['linear_attention'] },
    follows: 'qwen3_moe', source: `qwen3_next/configuration_qwen3_next.py, modular_qwen3_next.py ${V5}`,
  }),
  smollm3: rope({
    theta: 2e6, defaults: { max_position_embeddings: 32768 },
    layers: { types: { flags: 'no_rope_layers', interval: 'no_rope_layer_interval', n: 4 }, none: ['nope'] },
    follows: 'llama', source: `smollm3/modular_smollm3.py ${V5}`,
  }),
  olmo: rope({ cache: 'float32', defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `olmo/configuration_olmo.py, modular_olmo.py ${V5}` }),
  olmo2: rope({ cache: 'float32', defaults: { max_position_embeddings: 2048 }, follows: 'olmo', source: `olmo2/modular_olmo2.py ${V5}` }),
  olmo3: rope({
    theta: 5e5, cache: 'float32', defaults: { max_position_embeddings: 2048 },
    // Sliding layers turn unscaled on the same base; a rope_scaling reaches the full-attention layers only.
    layers: { types: everyNth(4, null, 'full_attention', 'sliding_attention'), local: ['sliding_attention'], localTheta: null },
    follows: 'olmo2', source: `olmo3/modular_olmo3.py ${V5}`,
  }),
  olmoe: rope({ defaults: { max_position_embeddings: 4096 }, follows: 'llama', source: `olmoe/configuration_olmoe.py ${V5}` }),
  flex_olmo: rope({ theta: 5e5, cache: 'float32', defaults: { max_position_embeddings: 4096 }, follows: 'olmo2', source: `flex_olmo/configuration_flex_olmo.py, modular_flex_olmo.py ${V5}` }),
  helium: rope({ theta: 1e5, layout: 'interleaved', defaults: { max_position_embeddings: 4096, head_dim: 128 }, follows: 'granite', source: `helium/configuration_helium.py, modular_helium.py ${V5}` }),
  apertus: rope({
    theta: 1.2e7, follows: 'llama', source: `apertus/modular_apertus.py ${V5}`,
    defaults: { max_position_embeddings: 65536, rope_parameters: { rope_type: 'llama3', rope_theta: 1.2e7, factor: 8, original_max_position_embeddings: 8192, low_freq_factor: 1, high_freq_factor: 4 } },
  }),
  arcee: rope({ defaults: { max_position_embeddings: 4096 }, follows: 'llama', source: `arcee/modular_arcee.py ${V5}` }),
  bitnet: rope({ theta: 5e5, defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `bitnet/configuration_bitnet.py ${V5}` }),
  nanochat: rope({ rotation: 'reversed', defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `nanochat/configuration_nanochat.py, modular_nanochat.py ${V5}` }),
  aria_text: rope({ defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `aria/modular_aria.py ${V5}` }),
  diffllama: rope({ defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `diffllama/configuration_diffllama.py ${V5}` }),
  doge: rope({ defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `doge/configuration_doge.py ${V5}` }),
  emu3_text_model: rope({ theta: 1e6, defaults: { max_position_embeddings: 9216 }, follows: 'llama', source: `emu3/configuration_emu3.py ${V5}` }),
  chameleon: rope({ head: 'hidden', defaults: { max_position_embeddings: 4096 }, follows: 'llama', source: `chameleon/configuration_chameleon.py, modeling_chameleon.py ${V5}` }),
  jetmoe: rope({ head: 'kv_channels', defaults: { max_position_embeddings: 4096, kv_channels: 128 }, follows: 'mixtral', source: `jetmoe/configuration_jetmoe.py ${V5}` }),
  jais2: rope({ defaults: { max_position_embeddings: 8192 }, follows: 'llama', source: `jais2/configuration_jais2.py ${V5}` }),
  seed_oss: rope({ defaults: { max_position_embeddings: 524288, head_dim: 128 }, follows: 'llama', source: `seed_oss/configuration_seed_oss.py ${V5}` }),
  dots1: rope({ defaults: { max_position_embeddings: 2048 }, masks: ['layer_types'], follows: 'qwen3', source: `dots1/modular_dots1.py ${V5}` }),
  starcoder2: rope({ defaults: { max_position_embeddings: 4096 }, follows: 'mistral', source: `starcoder2/configuration_starcoder2.py ${V5}` }),
  gpt_oss: rope({
    theta: 150000, masks: ['layer_types'], follows: 'llama', source: `gpt_oss/configuration_gpt_oss.py, modular_gpt_oss.py ${V5}`,
    defaults: { max_position_embeddings: 131072, head_dim: 64, rope_parameters: { rope_type: 'yarn', factor: 32, beta_fast: 32, beta_slow: 1, truncate: false, original_max_position_embeddings: 4096 } },
  }),
  cwm: rope({
    theta: 1e6, masks: ['layer_types'], follows: 'llama', source: `cwm/modular_cwm.py ${V5}`,
    defaults: { max_position_embeddings: 131072, head_dim: 128, rope_parameters: { rope_type: 'llama3', rope_theta: 1e6, factor: 16, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
  }),
  hunyuan_v1_dense: rope({ alphaNtk: true, defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `hunyuan_v1_dense/configuration_hunyuan_v1_dense.py, modular_hunyuan_v1_dense.py ${V5}` }),
  hunyuan_v1_moe: rope({ alphaNtk: true, defaults: { max_position_embeddings: 2048 }, follows: 'hunyuan_v1_dense', source: `hunyuan_v1_moe/configuration_hunyuan_v1_moe.py ${V5}` }),
  ernie4_5: rope({ theta: 5e5, layout: 'interleaved', cache: 'float32', defaults: { max_position_embeddings: 131072, head_dim: 128 }, follows: 'llama', source: `ernie4_5/configuration_ernie4_5.py, modular_ernie4_5.py ${V5}` }),
  ernie4_5_moe: rope({ theta: 5e5, layout: 'interleaved', cache: 'float32', defaults: { max_position_embeddings: 131072 }, follows: 'ernie4_5', source: `ernie4_5_moe/configuration_ernie4_5_moe.py ${V5}` }),
  mllama_text_model: rope({
    theta: 5e5, head: 'hidden', defaults: { max_position_embeddings: 131072 },
    // Cross-attention layers attend to the image and turn nothing.
    layers: { types: { list: 'cross_attention_layers', default: [3, 8, 13, 18, 23, 28, 33, 38], in: 'cross_attention', other: 'self_attention' }, none: ['cross_attention'] },
    follows: 'llama', source: `mllama/configuration_mllama.py, modeling_mllama.py ${V5}`,
  }),
  lfm2: rope({
    theta: 1e6, defaults: { max_position_embeddings: 128000 },
    layers: { types: { list: 'full_attn_idxs', in: 'full_attention', other: 'conv' }, none: ['conv'] },
    follows: 'llama', source: `lfm2/configuration_lfm2.py ${V5}`,
  }),
  lfm2_moe: rope({ theta: 1e6, defaults: { max_position_embeddings: 128000 }, layers: { none: ['conv'] }, follows: 'lfm2', source: `lfm2_moe/configuration_lfm2_moe.py ${V5}` }),

  // Partial rotary: only the first part of each head turns.
  phi: rope({ rotary: 'partial_rotary_factor', head: 'hidden', defaults: { max_position_embeddings: 2048, partial_rotary_factor: 0.5 }, source: `phi/configuration_phi.py ${V5}` }),
  phi3: rope({
    rotary: 'partial_rotary_factor', head: 'hidden', longropeFromYarn: true, follows: 'mistral', source: `phi3/configuration_phi3.py ${V5}`,
    defaults: { max_position_embeddings: 4096, original_max_position_embeddings: 4096, partial_rotary_factor: 1 },
  }),
  phi4_multimodal: rope({
    rotary: 'partial_rotary_factor', head: 'hidden', longropeFromYarn: true, follows: 'phi3', source: `phi4_multimodal/configuration_phi4_multimodal.py ${V5}`,
    defaults: { max_position_embeddings: 131072, original_max_position_embeddings: 4096, partial_rotary_factor: 1 },
  }),
  persimmon: rope({ rotary: 'partial_rotary_factor', head: 'hidden', defaults: { max_position_embeddings: 16384, partial_rotary_factor: 0.5 }, source: `persimmon/configuration_persimmon.py ${V5}` }),
  stablelm: rope({ rotary: 'partial_rotary_factor', head: 'hidden', defaults: { max_position_embeddings: 4096, partial_rotary_factor: 0.25 }, source: `stablelm/configuration_stablelm.py ${V5}` }),
  nemotron: rope({ rotary: 'partial_rotary_factor', defaults: { max_position_embeddings: 4096, partial_rotary_factor: 0.5 }, follows: 'llama', source: `nemotron/configuration_nemotron.py ${V5}` }),
  glm: rope({ layout: 'interleaved', rotary: 'partial_rotary_factor', defaults: { max_position_embeddings: 131072, head_dim: 128, partial_rotary_factor: 0.5 }, follows: 'phi3', source: `glm/configuration_glm.py, modular_glm.py ${V5}` }),
  glm4: rope({ layout: 'interleaved', rotary: 'partial_rotary_factor', defaults: { max_position_embeddings: 131072, head_dim: 128, partial_rotary_factor: 0.5 }, follows: 'glm', source: `glm4/configuration_glm4.py, modeling_glm4.py ${V5}` }),
  glm4_moe: rope({ rotary: 'partial_rotary_factor', defaults: { max_position_embeddings: 131072, partial_rotary_factor: 0.5 }, follows: 'glm', source: `glm4_moe/modular_glm4_moe.py, modeling_glm4_moe.py ${V5}` }),
  gpt_neox: rope({ rotary: 'rotary_pct', base: 'rotary_emb_base', head: 'hidden', defaults: { max_position_embeddings: 2048, rotary_pct: 0.25 }, source: `gpt_neox/configuration_gpt_neox.py ${V5}` }),
  gpt_neox_japanese: rope({ rotary: 'rotary_pct', base: 'rotary_emb_base', head: 'hidden', defaults: { max_position_embeddings: 2048, rotary_pct: 1 }, follows: 'gpt_neox', source: `gpt_neox_japanese/configuration_gpt_neox_japanese.py ${V5}` }),
  // GPT-J and CodeGen build their table from rotary_dim on a fixed base; rope keys are not read.
  gptj: rope({ layout: 'interleaved', cache: 'float32', rotary: 'rotary_dim', base: 10000, head: 'hidden', fixedRope: true, defaults: { n_positions: 2048, rotary_dim: 64 }, source: `gptj/configuration_gptj.py, modeling_gptj.py ${V5}` }),
  codegen: rope({ layout: 'interleaved', cache: 'float32', rotary: 'rotary_dim', base: 10000, head: 'hidden', fixedRope: true, defaults: { n_positions: 2048, rotary_dim: 64 }, follows: 'gptj', source: `codegen/configuration_codegen.py ${V5}` }),
  recurrent_gemma: rope({
    rotary: 'partial_rotary_factor', head: 'hidden', defaults: { partial_rotary_factor: 0.5 },
    layers: { types: { blocks: 'block_types', default: ['recurrent', 'recurrent', 'attention'] }, none: ['recurrent'] },
    follows: 'gemma', source: `recurrent_gemma/configuration_recurrent_gemma.py, modeling_recurrent_gemma.py ${V5}`,
  }),
  // Bamba: the config class sets partial_rotary_factor 0.5 (the checkpoints turn 64 of 128: attn_rotary_emb), but
  // HF's own default-rule code turns the whole head; only the scaled rules read the fraction.
  bamba: rope({
    rotary: 'partial_rotary_factor', fixedPartial: 0.5, partialOnScaledRules: true, defaults: { max_position_embeddings: 262144 },
    layers: { types: { list: 'attn_layer_indices', default: [], in: 'attention', other: 'mamba' }, none: ['mamba'] },
    follows: 'jamba', source: `bamba/configuration_bamba.py ${V5}`,
  }),
  moonshine: rope({ layout: 'interleaved', rotary: 'partial_rotary_factor', head: 'hidden', defaults: { max_position_embeddings: 512, partial_rotary_factor: 0.9 }, follows: 'glm', source: `moonshine/configuration_moonshine.py ${V5}` }),

  // Gemma: query_pre_attn_scalar scores; Gemma 3 two bases by layer type.
  gemma: rope({ defaults: { max_position_embeddings: 8192, head_dim: 256 }, follows: 'llama', source: `gemma/configuration_gemma.py ${V5}` }),
  gemma2: rope({ defaults: { max_position_embeddings: 8192, head_dim: 256, query_pre_attn_scalar: 256 }, scores: { key: 'query_pre_attn_scalar', power: -0.5 }, masks: ['layer_types'], follows: 'gemma', source: `gemma2/configuration_gemma2.py, modular_gemma2.py ${V5}` }),
  vaultgemma: rope({ defaults: { max_position_embeddings: 8192, head_dim: 256, query_pre_attn_scalar: 256 }, scores: { key: 'query_pre_attn_scalar', power: -0.5 }, masks: ['layer_types'], follows: 'gemma2', source: `vaultgemma/modular_vaultgemma.py ${V5}` }),
  gemma3_text: rope({
    theta: 1e6, defaults: { max_position_embeddings: 131072, head_dim: 256, query_pre_attn_scalar: 256 }, scores: { key: 'query_pre_attn_scalar', power: -0.5 },
    layers: GEMMA3_LAYERS(6, 'sliding_window_pattern'), follows: 'gemma2', source: `gemma3/configuration_gemma3.py, modular_gemma3.py ${V5}`,
  }),
  gemma3n_text: rope({
    theta: 1e6, defaults: { max_position_embeddings: 32768, head_dim: 256 }, scores: { value: 1 },
    layers: GEMMA3_LAYERS(5, null), follows: 'gemma3_text', source: `gemma3n/configuration_gemma3n.py, modular_gemma3n.py ${V5}`,
  }),

  // Cohere: interleaved pairs; Cohere 2 and others: no positions on the full-attention layers.
  cohere: rope({ theta: 5e5, layout: 'interleaved', defaults: { max_position_embeddings: 8192 }, follows: 'llama', source: `cohere/configuration_cohere.py ${V5}` }),
  cohere2: rope({ layout: 'interleaved', head: 'hidden', defaults: { max_position_embeddings: 8192 }, layers: NOPE_ON_FULL(4, 'sliding_window_pattern'), follows: 'cohere', source: `cohere2/configuration_cohere2.py, modular_cohere2.py ${V5}` }),
  exaone4: rope({
    defaults: { max_position_embeddings: 2048 }, layers: EXAONE4_LAYERS,
    follows: 'llama', source: `exaone4/modular_exaone4.py ${V5}`,
  }),
  afmoe: rope({ defaults: { max_position_embeddings: 16384, head_dim: 128 }, layers: NOPE_ON_FULL(4, 'global_attn_every_n_layers'), follows: 'llama', source: `afmoe/configuration_afmoe.py, modular_afmoe.py ${V5}` }),
  minimax: rope({
    theta: 1e6, defaults: { max_position_embeddings: 131072 },
    // Even layers are softmax attention with RoPE, odd ones lightning (linear) attention without positions.
    layers: { types: everyNth(2, null, 'linear_attention', 'full_attention'), none: ['linear_attention'] },
    follows: 'mixtral', source: `minimax/modular_minimax.py ${V5}`,
  }),
  llama4_text: rope({
    theta: 5e5, layout: 'interleaved', cache: 'complex64', defaults: { max_position_embeddings: 131072, head_dim: 128 },
    layers: { types: { flags: 'no_rope_layers', interval: 'no_rope_layer_interval', n: 4 }, none: ['nope'], nopeQueryScale: true },
    follows: 'llama', source: `llama4/configuration_llama4.py, modeling_llama4.py ${V5}`,
  }),

  // Granite: attention_multiplier scales the scores.
  granite: rope({ defaults: { max_position_embeddings: 2048, attention_multiplier: 1 }, scores: { key: 'attention_multiplier' }, follows: 'llama', source: `granite/configuration_granite.py ${V5}` }),
  granitemoe: rope({ head: 'hidden', defaults: { max_position_embeddings: 2048, attention_multiplier: 1 }, scores: { key: 'attention_multiplier' }, follows: 'granite', source: `granitemoe/configuration_granitemoe.py ${V5}` }),
  granitemoeshared: rope({ head: 'hidden', defaults: { max_position_embeddings: 2048, attention_multiplier: 1 }, scores: { key: 'attention_multiplier' }, follows: 'granitemoe', source: `granitemoeshared/configuration_granitemoeshared.py ${V5}` }),
  granitemoehybrid: rope({
    head: 'hidden', defaults: { max_position_embeddings: 2048, attention_multiplier: 1 }, scores: { key: 'attention_multiplier' },
    layers: { types: { all: 'mamba' }, none: ['mamba'], enabledBy: { position_embedding_type: 'rope' } },
    follows: 'granitemoeshared', source: `granitemoehybrid/configuration_granitemoehybrid.py ${V5}`,
  }),
  falcon_h1: rope({ defaults: { max_position_embeddings: 8192, key_multiplier: 1 }, scores: { keyMultiplier: 'key_multiplier' }, follows: 'llama', source: `falcon_h1/configuration_falcon_h1.py, modular_falcon_h1.py ${V5}` }),
  falcon: rope({ head: 'hidden', defaults: { max_position_embeddings: 2048 }, alibiKey: 'alibi', follows: 'llama', source: `falcon/configuration_falcon.py, modeling_falcon.py ${V5}` }),

  // MLA: RoPE on a slice of the head (qk_rope_head_dim), interleaved.
  deepseek_v2: mla({
    cache: 'complex64', defaults: { max_position_embeddings: 2048, qk_rope_head_dim: 64, qk_nope_head_dim: 128 },
    scores: 'mla-plain', follows: 'llama', source: `deepseek_v2/configuration_deepseek_v2.py, modular_deepseek_v2.py ${V5}`,
  }),
  deepseek_v3: mla({
    defaults: { max_position_embeddings: 4096, qk_rope_head_dim: 64, qk_nope_head_dim: 128, rope_interleave: true },
    follows: 'llama', source: `deepseek_v3/configuration_deepseek_v3.py, modular_deepseek_v3.py ${V5}`,
  }),
  deepseek_v32: mla({ fixedLayout: true, defaults: { max_position_embeddings: 163840, qk_rope_head_dim: 64, qk_nope_head_dim: 128 }, source: `deepseek_v32/configuration_deepseek_v32.py, modular_deepseek_v32.py ${V5}` }),
  axk1: mla({ defaults: { max_position_embeddings: 32768, qk_rope_head_dim: 64, qk_nope_head_dim: 128, rope_interleave: true }, source: `axk1/configuration_axk1.py, modular_axk1.py ${V5}` }),
  axk2: mla({ fixedLayout: true, defaults: { max_position_embeddings: 131072, qk_rope_head_dim: 32, qk_nope_head_dim: 64 }, follows: 'deepseek_v32', source: `axk2/configuration_axk2.py, modular_axk2.py ${V5}` }),
  glm4_moe_lite: mla({ defaults: { max_position_embeddings: 202752, qk_rope_head_dim: 64, qk_nope_head_dim: 192, rope_interleave: true }, source: `glm4_moe_lite/configuration_glm4_moe_lite.py ${V5}` }),

  exaone_moe: rope({
    defaults: { max_position_embeddings: 2048 }, layers: EXAONE4_LAYERS,
    follows: 'exaone4', source: `exaone_moe/configuration_exaone_moe.py (Exaone4's config) ${V5}`,
  }),
  deepseek_ocr2_text: rope({ head: 'hidden', defaults: { max_position_embeddings: 2048 }, follows: 'llama', source: `deepseek_ocr2/configuration_deepseek_ocr2.py ${V5}` }),
  eurobert: rope({ defaults: { max_position_embeddings: 8192 }, follows: 'llama', source: `eurobert/configuration_eurobert.py ${V5}` }),
  hy_v3: rope({ theta: 11158840, defaults: { max_position_embeddings: 131072, head_dim: 128 }, follows: 'apertus', source: `hy_v3/configuration_hy_v3.py ${V5}` }),
  openai_privacy_filter: rope({
    theta: 150000, layout: 'interleaved', follows: 'gpt_oss', source: `openai_privacy_filter/modular_openai_privacy_filter.py ${V5}`,
    defaults: { max_position_embeddings: 131072, head_dim: 64, rope_parameters: { rope_type: 'yarn', factor: 32, beta_fast: 32, beta_slow: 1, truncate: false, original_max_position_embeddings: 4096 } },
  }),

  // mRoPE: time, height and width positions, each driving a section of the pairs.
  qwen2_vl_text: rope({ theta: 1e6, defaults: { max_position_embeddings: 32768 }, mrope: { interleaved: false }, follows: 'qwen2', source: `qwen2_vl/configuration_qwen2_vl.py, modeling_qwen2_vl.py ${V5}` }),
  qwen2_5_vl_text: rope({ theta: 1e6, defaults: { max_position_embeddings: 32768 }, mrope: { interleaved: false }, follows: 'qwen2_vl_text', source: `qwen2_5_vl/configuration_qwen2_5_vl.py ${V5}` }),
  qwen2_5_omni_text: rope({ theta: 1e6, defaults: { max_position_embeddings: 32768 }, mrope: { interleaved: false }, follows: 'qwen2_5_vl_text', source: `qwen2_5_omni/configuration_qwen2_5_omni.py ${V5}` }),
  qwen3_vl_text: rope({ theta: 5e5, defaults: { max_position_embeddings: 128000, head_dim: 128 }, mrope: { interleaved: true, section: [24, 20, 20] }, follows: 'qwen3', source: `qwen3_vl/configuration_qwen3_vl.py, modeling_qwen3_vl.py ${V5}` }),
  qwen3_vl_moe_text: rope({ theta: 5e5, defaults: { max_position_embeddings: 128000 }, mrope: { interleaved: true, section: [24, 20, 20] }, follows: 'qwen3_vl_text', source: `qwen3_vl_moe/modular_qwen3_vl_moe.py ${V5}` }),
  qwen3_omni_moe_text: rope({ theta: 1e6, defaults: { max_position_embeddings: 32768 }, mrope: { interleaved: true, section: [24, 20, 20] }, follows: 'qwen3_vl_moe_text', source: `qwen3_omni_moe/configuration_qwen3_omni_moe.py ${V5}` }),
  glm4v_text: rope({ layout: 'interleaved', rotary: 'partial_rotary_factor', defaults: { max_position_embeddings: 32768, partial_rotary_factor: 0.5 }, mrope: { interleaved: false, section: [8, 12, 12] }, follows: 'glm4', source: `glm4v/configuration_glm4v.py ${V5}` }),
  paddleocr_vl_text: rope({ theta: 5e5, defaults: { max_position_embeddings: 131072, head_dim: 128 }, mrope: { interleaved: false }, follows: 'qwen2_vl_text', source: `paddleocr_vl/configuration_paddleocr_vl.py ${V5}` }),
  cosmos3_edge_text: rope({ theta: 1e8, defaults: { max_position_embeddings: 131072, head_dim: 128 }, mrope: { interleaved: true, section: [24, 20, 20] }, follows: 'qwen3_vl_text', source: `cosmos3_edge/configuration_cosmos3_edge.py ${V5}` }),
  glm4v_moe_text: rope({ rotary: 'partial_rotary_factor', defaults: { max_position_embeddings: 65536, partial_rotary_factor: 0.5 }, mrope: { interleaved: false, section: [8, 12, 12] }, follows: 'glm4_moe', source: `glm4v_moe/modular_glm4v_moe.py ${V5}` }),

  // Encoders with RoPE.
  modernbert: rope({
    theta: 160000, cache: 'float32', defaults: { max_position_embeddings: 8192 },
    layers: { types: everyNth(3, 'global_attn_every_n_layers', 'full_attention', 'sliding_attention', { first: true }), local: ['sliding_attention'], localTheta: 'local_rope_theta', localDefault: 10000, globalTheta: 'global_rope_theta' },
    source: `modernbert/configuration_modernbert.py ${V5}`,
  }),
  'modernbert-decoder': rope({
    theta: 160000, cache: 'float32', defaults: { max_position_embeddings: 8192 },
    layers: { types: everyNth(3, 'global_attn_every_n_layers', 'full_attention', 'sliding_attention', { first: true }), local: ['sliding_attention'], localTheta: 'local_rope_theta', localDefault: 10000, globalTheta: 'global_rope_theta' },
    follows: 'modernbert', source: `modernbert_decoder/configuration_modernbert_decoder.py ${V5}`,
  }),

  // Attention without positions (the recurrent or state-space layers carry order).
  jamba: { kind: 'none', defaults: { max_position_embeddings: 262144 }, source: `jamba/configuration_jamba.py ${V5}` },
  zamba: { kind: 'none', defaults: { max_position_embeddings: 4096 }, source: `zamba/configuration_zamba.py, modeling_zamba.py ${V5}` },

  // ALiBi.
  bloom: { kind: 'alibi', slopes: 'bloom', aliases: { hidden_size: 'n_embed', num_attention_heads: 'n_head', num_hidden_layers: 'n_layer' }, source: `bloom/configuration_bloom.py ${V5}` },
  mpt: { kind: 'alibi', slopes: 'mpt', defaults: { max_seq_len: 2048 }, source: `mpt/configuration_mpt.py, modeling_mpt.py ${V5}` },

  // T5's relative buckets.
  t5: { kind: 't5', source: `t5/configuration_t5.py ${V5}` },
  mt5: { kind: 't5', follows: 't5', source: `mt5/configuration_mt5.py ${V5}` },
  umt5: { kind: 't5', follows: 't5', source: `umt5/configuration_umt5.py ${V5}` },
  longt5: { kind: 't5', follows: 't5', source: `longt5/configuration_longt5.py ${V5}` },
  switch_transformers: { kind: 't5', follows: 't5', source: `switch_transformers/configuration_switch_transformers.py ${V5}` },
  pop2piano: { kind: 't5', follows: 't5', source: `pop2piano/configuration_pop2piano.py ${V5}` },

  // Learned absolute positions: one table, read once at the input.
  gpt2: { kind: 'learned', offset: 0, defaults: { n_positions: 1024 }, source: `gpt2/configuration_gpt2.py ${V5}` },
  'gpt-sw3': { kind: 'learned', offset: 0, defaults: { n_positions: 1024 }, follows: 'gpt2', source: `gpt2/configuration_gpt2.py ${V5}` },
  'openai-gpt': { kind: 'learned', offset: 0, defaults: { n_positions: 512 }, source: `openai/configuration_openai.py ${V5}` },
  gpt_bigcode: { kind: 'learned', offset: 0, defaults: { n_positions: 1024 }, follows: 'gpt2', source: `gpt_bigcode/configuration_gpt_bigcode.py ${V5}` },
  gpt_neo: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 2048 }, scores: { value: 1 }, follows: 'gpt2', source: `gpt_neo/configuration_gpt_neo.py ${V5}` },
  opt: { kind: 'learned', offset: 2, defaults: { max_position_embeddings: 2048 }, source: `opt/configuration_opt.py ${V5}` },
  biogpt: { kind: 'learned', offset: 2, defaults: { max_position_embeddings: 1024 }, follows: 'opt', source: `biogpt/configuration_biogpt.py ${V5}` },
  bart: { kind: 'learned', aliases: ENCODER_SIZES, offset: 2, defaults: { max_position_embeddings: 1024 }, source: `bart/configuration_bart.py ${V5}` },
  mbart: { kind: 'learned', aliases: ENCODER_SIZES, offset: 2, defaults: { max_position_embeddings: 1024 }, follows: 'bart', source: `mbart/configuration_mbart.py ${V5}` },
  plbart: { kind: 'learned', aliases: ENCODER_SIZES, offset: 2, defaults: { max_position_embeddings: 1024 }, follows: 'bart', source: `plbart/configuration_plbart.py ${V5}` },
  mvp: { kind: 'learned', aliases: ENCODER_SIZES, offset: 2, defaults: { max_position_embeddings: 1024 }, follows: 'bart', source: `mvp/configuration_mvp.py ${V5}` },
  blenderbot: { kind: 'learned', aliases: ENCODER_SIZES, offset: 0, defaults: { max_position_embeddings: 128 }, follows: 'bart', source: `blenderbot/configuration_blenderbot.py ${V5}` },
  'blenderbot-small': { kind: 'learned', aliases: ENCODER_SIZES, offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bart', source: `blenderbot_small/configuration_blenderbot_small.py ${V5}` },
  bigbird_pegasus: { kind: 'learned', aliases: ENCODER_SIZES, offset: 0, defaults: { max_position_embeddings: 4096 }, follows: 'bart', source: `bigbird_pegasus/configuration_bigbird_pegasus.py ${V5}` },
  bert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, source: `bert/configuration_bert.py, modeling_bert.py ${V5}` },
  distilbert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, aliases: { hidden_size: 'dim', num_attention_heads: 'n_heads', num_hidden_layers: 'n_layers' }, follows: 'bert', source: `distilbert/configuration_distilbert.py ${V5}` },
  albert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `albert/configuration_albert.py ${V5}` },
  electra: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `electra/configuration_electra.py ${V5}` },
  convbert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `convbert/configuration_convbert.py ${V5}` },
  big_bird: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 4096 }, follows: 'bert', source: `big_bird/configuration_big_bird.py ${V5}` },
  // MobileBERT attends in its bottleneck: heads of true_hidden_size / num_attention_heads.
  mobilebert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512, true_hidden_size: 128 }, attentionWidth: 'true_hidden_size', follows: 'bert', source: `mobilebert/configuration_mobilebert.py ${V5}` },
  rembert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `rembert/configuration_rembert.py ${V5}` },
  roberta: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, source: `roberta/configuration_roberta.py, modular_roberta.py ${V5}` },
  'xlm-roberta': { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `xlm_roberta (RobertaEmbeddings) ${V5}` },
  'xlm-roberta-xl': { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 514, pad_token_id: 1 }, follows: 'roberta', source: `xlm_roberta_xl/configuration_xlm_roberta_xl.py ${V5}` },
  xmod: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `xmod/configuration_xmod.py ${V5}` },
  ibert: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `ibert/configuration_ibert.py ${V5}` },
  longformer: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `longformer/configuration_longformer.py ${V5}` },
  luke: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `luke/configuration_luke.py ${V5}` },
  nystromformer: { kind: 'learned', offset: 2, defaults: { max_position_embeddings: 510 }, follows: 'bert', source: `nystromformer/configuration_nystromformer.py ${V5}` },

  camembert: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `camembert (RobertaEmbeddings) ${V5}` },
  'data2vec-text': { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `data2vec (RobertaEmbeddings) ${V5}` },
  'roberta-prelayernorm': { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 1 }, follows: 'roberta', source: `roberta_prelayernorm (RobertaEmbeddings) ${V5}` },
  markuplm: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 0 }, follows: 'roberta', source: `markuplm/configuration_markuplm.py ${V5}` },
  lilt: { kind: 'learned', offset: 'padding', defaults: { max_position_embeddings: 512, pad_token_id: 0 }, follows: 'roberta', source: `lilt/configuration_lilt.py ${V5}` },
  ernie: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `ernie (BertEmbeddings) ${V5}` },
  'megatron-bert': { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `megatron_bert (BertEmbeddings) ${V5}` },
  roc_bert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `roc_bert (BertEmbeddings) ${V5}` },
  splinter: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `splinter (BertEmbeddings) ${V5}` },
  squeezebert: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `squeezebert (BertEmbeddings) ${V5}` },
  layoutlm: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `layoutlm (BertEmbeddings and 2-D box tables) ${V5}` },
  'bert-generation': { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, follows: 'bert', source: `bert_generation (BertEmbeddings) ${V5}` },
  clip_text_model: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 77 }, source: `clip/configuration_clip.py (CLIPTextConfig) ${V5}` },
  yoso: { kind: 'learned', offset: 2, defaults: { max_position_embeddings: 512 }, follows: 'nystromformer', source: `yoso (position ids + 2) ${V5}` },
  mra: { kind: 'learned', offset: 2, defaults: { max_position_embeddings: 512 }, follows: 'nystromformer', source: `mra (position ids + 2) ${V5}` },

  // Sinusoidal: a fixed table, added once at the input.
  m2m_100: { kind: 'sinusoidal', aliases: ENCODER_SIZES, timescale: 't2t', layout: 'split', offset: 'padding', defaults: { pad_token_id: 1 }, source: `m2m_100/configuration_m2m_100.py ${V5}` },
  'nllb-moe': { kind: 'sinusoidal', aliases: ENCODER_SIZES, timescale: 't2t', layout: 'split', offset: 'padding', defaults: { pad_token_id: 1 }, follows: 'm2m_100', source: `nllb_moe/configuration_nllb_moe.py ${V5}` },
  xglm: { kind: 'sinusoidal', aliases: { num_attention_heads: 'attention_heads', num_hidden_layers: 'num_layers' }, timescale: 't2t', layout: 'split', offset: 2, follows: 'm2m_100', source: `xglm/configuration_xglm.py, modeling_xglm.py ${V5}` },
  pegasus_x: { kind: 'sinusoidal', aliases: ENCODER_SIZES, timescale: 't2t', layout: 'split', offset: 0, source: `pegasus_x/configuration_pegasus_x.py, modeling_pegasus_x.py ${V5}` },
  marian: { kind: 'sinusoidal', aliases: ENCODER_SIZES, timescale: 'standard', layout: 'split', offset: 0, source: `marian/configuration_marian.py ${V5}` },
  pegasus: { kind: 'sinusoidal', aliases: ENCODER_SIZES, timescale: 'standard', layout: 'split', offset: 0, follows: 'marian', source: `pegasus/configuration_pegasus.py ${V5}` },
  ctrl: { kind: 'sinusoidal', timescale: 'standard', layout: 'split', offset: 0, source: `ctrl/configuration_ctrl.py, modeling_ctrl.py ${V5}` },
};

// The config classes' defaults for the sizes (hidden_size, num_attention_heads, num_hidden_layers), used where a
// file gives none of their spellings.
const SIZES = {
  llama: [4096, 32, 32], mistral: [4096, 32, 32], mixtral: [4096, 32, 32], ministral: [4096, 32, 32],
  ministral3: [4096, 32, 34], qwen2: [4096, 32, 32], qwen2_moe: [2048, 16, 24], qwen3: [4096, 32, 32],
  qwen3_moe: [2048, 32, 24], qwen3_next: [2048, 16, 48], smollm3: [2048, 16, 36], olmo: [4096, 32, 32],
  olmo2: [4096, 32, 32], olmo3: [4096, 32, 32], olmoe: [2048, 16, 16], flex_olmo: [4096, 32, 32],
  helium: [2560, 20, 24], apertus: [4096, 32, 32], arcee: [2560, 32, 32], gemma: [3072, 16, 28],
  gemma2: [2304, 8, 26], gemma3_text: [2304, 8, 26], gemma3n_text: [2048, 8, 35], vaultgemma: [2304, 8, 26],
  recurrent_gemma: [2560, 10, 26], cohere: [8192, 64, 40], cohere2: [8192, 64, 40], granite: [4096, 32, 32],
  granitemoe: [4096, 32, 32], granitemoeshared: [4096, 32, 32], granitemoehybrid: [4096, 32, 32],
  bitnet: [2560, 20, 30], nanochat: [768, 6, 12], deepseek_v2: [4096, 32, 32], deepseek_v3: [7168, 128, 61],
  dots1: [4608, 32, 62], glm: [4096, 32, 40], glm4: [4096, 32, 40], glm4_moe: [4096, 96, 46],
  minimax: [4096, 32, 32], ernie4_5: [1024, 16, 18], ernie4_5_moe: [2560, 20, 28], exaone4: [4096, 32, 32],
  hunyuan_v1_dense: [4096, 32, 32], hunyuan_v1_moe: [4096, 32, 32], seed_oss: [4096, 80, 64], afmoe: [2048, 16, 32],
  cwm: [6144, 48, 64], phi: [2048, 32, 24], phi3: [3072, 32, 32], phi4_multimodal: [3072, 32, 32],
  persimmon: [4096, 64, 36], stablelm: [2560, 32, 32], starcoder2: [3072, 24, 30], gpt_neox: [6144, 64, 44],
  gpt_neox_japanese: [2560, 32, 32], gptj: [4096, 16, 28], codegen: [4096, 16, 28], falcon: [4544, 71, 32],
  falcon_h1: [4096, 32, 32], bamba: [4096, 32, 32], jamba: [4096, 32, 32], zamba: [3712, 16, 76],
  nemotron: [6144, 48, 32], llama4_text: [5120, 40, 48], mllama_text_model: [4096, 32, 40], gpt_oss: [2880, 64, 36],
  aria_text: [4096, 32, 32], diffllama: [2048, 32, 16], doge: [1024, 8, 32], emu3_text_model: [4096, 32, 32],
  chameleon: [4096, 32, 32], jetmoe: [2048, 32, 12], jais2: [3328, 26, 32], lfm2: [2560, 32, 32],
  lfm2_moe: [2048, 32, 32], moonshine: [288, 8, 6], qwen2_vl_text: [8192, 64, 80], qwen2_5_vl_text: [8192, 64, 80],
  qwen3_vl_text: [4096, 32, 32], qwen3_vl_moe_text: [2048, 16, 24], qwen2_5_omni_text: [3584, 28, 28],
  qwen3_omni_moe_text: [2048, 28, 28], glm4v_text: [4096, 32, 40], glm4v_moe_text: [4096, 96, 46],
  modernbert: [768, 12, 22], 'modernbert-decoder': [768, 12, 22], bloom: [64, 8, 2], mpt: [2048, 16, 24],
  t5: [512, 8, 6], mt5: [512, 6, 8], umt5: [512, 6, 8], longt5: [512, 8, 6], switch_transformers: [768, 12, 12],
  pop2piano: [512, 8, 6], gpt2: [768, 12, 12], 'gpt-sw3': [768, 12, 12], 'openai-gpt': [768, 12, 12],
  gpt_bigcode: [768, 12, 12], gpt_neo: [2048, 16, 24], ctrl: [1280, 16, 48], xglm: [1024, 16, 24],
  biogpt: [1024, 16, 24], opt: [768, 12, 12], bart: [1024, 16, 12], mbart: [1024, 16, 12], plbart: [768, 12, 6],
  mvp: [1024, 16, 12], blenderbot: [2560, 32, 2], 'blenderbot-small': [512, 16, 8], pegasus: [1024, 16, 12],
  pegasus_x: [1024, 16, 16], m2m_100: [1024, 16, 12], 'nllb-moe': [1024, 16, 12], marian: [1024, 16, 12],
  bigbird_pegasus: [1024, 16, 16], bert: [768, 12, 12], roberta: [768, 12, 12], 'xlm-roberta': [768, 12, 12],
  'xlm-roberta-xl': [2560, 32, 36], distilbert: [768, 12, 6], albert: [4096, 64, 12], electra: [256, 4, 12],
  xmod: [768, 12, 12], ibert: [768, 12, 12], luke: [768, 12, 12], longformer: [768, 12, 12], big_bird: [768, 12, 12],
  nystromformer: [768, 12, 12], rembert: [1152, 18, 32], convbert: [768, 12, 12], mobilebert: [512, 4, 24],
};
Object.assign(SIZES, {
  deepseek_v32: [7168, 128, 61], axk1: [7168, 64, 61], axk2: [2048, 32, 48], glm4_moe_lite: [2048, 20, 47], exaone_moe: [4096, 32, 32],
  deepseek_ocr2_text: [4096, 32, 32], eurobert: [768, 12, 12], hy_v3: [4096, 64, 80], openai_privacy_filter: [640, 14, 8],
  paddleocr_vl_text: [1024, 16, 18], cosmos3_edge_text: [2048, 16, 28], camembert: [768, 12, 12], 'data2vec-text': [768, 12, 12],
  'roberta-prelayernorm': [768, 12, 12], markuplm: [768, 12, 12], lilt: [768, 12, 12], ernie: [768, 12, 12], 'megatron-bert': [1024, 16, 24],
  roc_bert: [768, 12, 12], splinter: [768, 12, 12], squeezebert: [768, 12, 12], layoutlm: [768, 12, 12], 'bert-generation': [1024, 16, 24],
  clip_text_model: [512, 8, 12], yoso: [768, 12, 12], mra: [768, 12, 12],
});
for (const [type, sizes] of Object.entries(SIZES)) FAMILIES[type].sizes = sizes;

// Families read as another is (their attention and positions that family's code, named in `follows`), with their own
// class defaults and sizes (hidden, heads, layers: the class's own, never the base's; none where the class has no
// default for them). `aliases`: HF's attribute_map, a standard key read under the family's own name.
const like = (base, entry) => {
  const { sizes, ...read } = FAMILIES[base];
  return { ...read, follows: base, ...entry, defaults: { ...read.defaults, ...entry.defaults } };
};
const R2 = '(transformers main, v5; read November 2026, second round)';
Object.assign(FAMILIES, {
  // Text towers of vision and audio models: BERT's, RoBERTa's and CLIP's learned tables.
  aimv2_text_model: like('clip_text_model', { sizes: [768, 6, 12], source: `aimv2/modular_aimv2.py ${R2}` }),
  clipseg_text_model: like('clip_text_model', { sizes: [512, 8, 12], source: `clipseg/configuration_clipseg.py ${R2}` }),
  groupvit_text_model: like('clip_text_model', { sizes: [256, 4, 12], source: `groupvit/configuration_groupvit.py ${R2}` }),
  metaclip_2_text_model: like('clip_text_model', { sizes: [512, 8, 12], source: `metaclip_2/modular_metaclip_2.py ${R2}` }),
  xclip_text_model: like('clip_text_model', { sizes: [512, 8, 12], source: `xclip/configuration_xclip.py ${R2}` }),
  owlvit_text_model: like('clip_text_model', { defaults: { max_position_embeddings: 16 }, sizes: [512, 8, 12], source: `owlvit/configuration_owlvit.py ${R2}` }),
  siglip_text_model: like('clip_text_model', { defaults: { max_position_embeddings: 64 }, sizes: [768, 12, 12], source: `siglip/configuration_siglip.py ${R2}` }),
  align_text_model: like('bert', { sizes: [768, 12, 12], source: `align/configuration_align.py ${R2}` }),
  blip_text_model: like('bert', { sizes: [768, 8, 12], source: `blip/configuration_blip.py ${R2}` }),
  chinese_clip_text_model: like('bert', { sizes: [768, 12, 12], source: `chinese_clip/configuration_chinese_clip.py ${R2}` }),
  flava_text_model: like('bert', { sizes: [768, 12, 12], source: `flava/configuration_flava.py ${R2}` }),
  instructblip_qformer: like('bert', { sizes: [768, 12, 12], source: `instructblip/configuration_instructblip.py ${R2}` }),
  instructblipvideo_qformer: like('bert', { sizes: [768, 12, 12], source: `instructblipvideo/modular_instructblipvideo.py ${R2}` }),
  visual_bert: like('bert', { sizes: [768, 12, 12], source: `visual_bert/configuration_visual_bert.py ${R2}` }),
  tvp: like('bert', { sizes: [768, 12, 12], source: `tvp/configuration_tvp.py ${R2}` }),
  dpr: like('bert', { sizes: [768, 12, 12], source: `dpr/configuration_dpr.py ${R2}` }),
  vilt: like('bert', { defaults: { max_position_embeddings: 40 }, sizes: [768, 12, 12], source: `vilt/configuration_vilt.py ${R2}` }),
  git: like('bert', { defaults: { max_position_embeddings: 1024 }, sizes: [768, 12, 6], source: `git/configuration_git.py ${R2}` }),
  altclip_text_model: like('xlm-roberta', { defaults: { max_position_embeddings: 514 }, sizes: [1024, 16, 24], source: `altclip/configuration_altclip.py ${R2}` }),
  bridgetower_text_model: like('roberta', { defaults: { max_position_embeddings: 514 }, sizes: [768, 12, 12], source: `bridgetower/configuration_bridgetower.py ${R2}` }),
  clap_text_model: like('roberta', { defaults: { max_position_embeddings: 514 }, sizes: [768, 12, 12], source: `clap/configuration_clap.py ${R2}` }),
  // XLM: a learned table (with sinusoidal_embeddings, one written with sinusoids at initialisation: a checkpoint's
  // stored table either way), positions from 0.
  xlm: { kind: 'learned', offset: 0, defaults: { max_position_embeddings: 512 }, aliases: { hidden_size: 'emb_dim' }, sizes: [2048, 16, 12], source: `xlm/configuration_xlm.py, modeling_xlm.py ${R2}` },
  // Fixed sinusoids: fairseq's (Kosmos-2, SeamlessM4T: M2M100's, from pad_token_id + 1), TIPSv2's and VideoPrism's.
  kosmos_2_text_model: like('m2m_100', { defaults: { max_position_embeddings: 2048 }, aliases: { hidden_size: 'embed_dim', num_attention_heads: 'attention_heads', num_hidden_layers: 'layers' }, sizes: [2048, 32, 24], source: `kosmos2/configuration_kosmos2.py ${R2}` }),
  kosmos_2_5_text_model: like('m2m_100', { defaults: { max_position_embeddings: 4096 }, aliases: { hidden_size: 'embed_dim', num_attention_heads: 'attention_heads', num_hidden_layers: 'layers' }, sizes: [1536, 16, 24], source: `kosmos2_5/configuration_kosmos2_5.py ${R2}` }),
  seamless_m4t: like('m2m_100', { defaults: { pad_token_id: 0, max_position_embeddings: 1024 }, aliases: { num_attention_heads: 'decoder_attention_heads', num_hidden_layers: 'decoder_layers' }, sizes: [1024, 16, 24], source: `seamless_m4t/configuration_seamless_m4t.py ${R2}` }),
  tipsv2_text_model: { kind: 'sinusoidal', timescale: 't2t', layout: 'split', offset: 0, defaults: { max_position_embeddings: 64 }, sizes: [768, 12, 12], source: `tipsv2/configuration_tipsv2.py, modeling_tipsv2.py ${R2}` },
  videoprism_text_model: { kind: 'sinusoidal', timescale: 'standard', layout: 'split', offset: 0, defaults: { max_position_embeddings: 64 }, sizes: [768, 12, 12], source: `videoprism/modular_videoprism.py ${R2}` },
  // Pix2Struct's text model is a decoder: one-directional buckets on its num_layers blocks (the encoder is the vision model's).
  pix2struct_text_model: like('t5', { decoderOnly: true, sizes: [768, 12, 12], source: `pix2struct/configuration_pix2struct.py, modeling_pix2struct.py ${R2}` }),
  pp_formulanet: like('mbart', { defaults: { max_position_embeddings: 2560 }, aliases: { num_attention_heads: 'decoder_attention_heads', num_hidden_layers: 'decoder_layers' }, source: `pp_formulanet/configuration_pp_formulanet.py ${R2}` }),
  // RoPE as Llama's (the whole head, half layout, every layer), each class with its own defaults.
  esmc: like('llama', { defaults: { max_position_embeddings: 2048 }, sizes: [2560, 40, 80], source: `esmc/configuration_esmc.py ${R2}` }),
  evolla: like('llama', { theta: 5e5, defaults: { max_position_embeddings: 8192 }, sizes: [4096, 32, 32], source: `evolla/configuration_evolla.py ${R2}` }),
  // HRM: the file's num_hidden_layers is per stack; HF counts one layer per attention call of the recurrent forward.
  hrm_text: like('llama', {
    defaults: { max_position_embeddings: 2048, head_dim: 128, H_cycles: 2, L_cycles: 3 }, sizes: [1536, 12, 16],
    layerCount: { perStack: 'num_layers_per_stack', times: ['H_cycles', ['L_cycles', 1]] }, source: `hrm_text/configuration_hrm_text.py ${R2}`,
  }),
  higgs_audio_v2: like('llama', {
    defaults: { max_position_embeddings: 2048, head_dim: 128, rope_parameters: { rope_type: 'llama3', rope_theta: 5e5, factor: 32, low_freq_factor: 0.125, high_freq_factor: 0.5, original_max_position_embeddings: 1024 } },
    sizes: [3072, 24, 28], source: `higgs_audio_v2/configuration_higgs_audio_v2.py ${R2}`,
  }),
  csm_depth_decoder_model: like('llama', { theta: 5e5, defaults: { max_position_embeddings: 33 }, sizes: [1024, 8, 4], source: `csm/configuration_csm.py ${R2}` }),
  solar_open: like('llama', { theta: 1e6, defaults: { max_position_embeddings: 131072, head_dim: 128 }, sizes: [4096, 64, 48], source: `solar_open/modular_solar_open.py ${R2}` }),
  // Muse Glimmer's assistant: every layer turns; layer_types (all sliding by default) pick the masks only.
  muse_glimmer_assistant: like('llama', {
    theta: 5e5, defaults: { max_position_embeddings: 131072, head_dim: 128 }, sizes: [6656, 32, 5], layers: { types: { all: 'sliding_attention' } },
    source: `muse_glimmer_assistant/configuration_muse_glimmer_assistant.py, modular_muse_glimmer_assistant.py ${R2}`,
  }),
  jina_embeddings_v3: rope({ theta: 20000, head: 'hidden', defaults: { max_position_embeddings: 8194 }, sizes: [1024, 16, 24], follows: 'xlm-roberta', source: `jina_embeddings_v3/modular_jina_embeddings_v3.py ${R2}` }),
  idefics: rope({ base: 10000, head: 'hidden', fixedRope: true, sizes: [4096, 32, 32], follows: 'llama', source: `idefics/configuration_idefics.py, modeling_idefics.py ${R2}` }),
  voxtral_realtime_text: like('mistral', { sizes: [4096, 32, 32], source: `voxtral_realtime/configuration_voxtral_realtime.py ${R2}` }),
  // HyperCLOVA X: Granite's scores by attention_multiplier, head_dim ** -0.5 where the file has none.
  hyperclovax: rope({ scores: { key: 'attention_multiplier', orHead: true }, defaults: { max_position_embeddings: 2048 }, sizes: [4096, 32, 32], follows: 'granite', source: `hyperclovax/modular_hyperclovax.py ${R2}` }),
  granite4_vision_text: like('granite', { sizes: [4096, 32, 32], source: `granite4_vision/configuration_granite4_vision.py ${R2}` }),
  dia_encoder: rope({ scores: { value: 1 }, defaults: { max_position_embeddings: 1024, head_dim: 128 }, sizes: [1024, 16, 12], follows: 'llama', source: `dia/configuration_dia.py, modeling_dia.py ${R2}` }),
  dia_decoder: rope({ scores: { value: 1 }, defaults: { max_position_embeddings: 3072, head_dim: 128 }, sizes: [2048, 16, 18], follows: 'llama', source: `dia/configuration_dia.py, modeling_dia.py ${R2}` }),
  // BLT's sub-models: interleaved pairs (Cohere's), the head hidden_size // num_attention_heads.
  blt_local_encoder: rope({ layout: 'interleaved', head: 'hidden', theta: 5e5, defaults: { max_position_embeddings: 24576 }, sizes: [1024, 16, 1], follows: 'cohere2', source: `blt/configuration_blt.py, modular_blt.py ${R2}` }),
  blt_local_decoder: rope({ layout: 'interleaved', head: 'hidden', theta: 5e5, defaults: { max_position_embeddings: 24576 }, sizes: [1024, 16, 9], follows: 'cohere2', source: `blt/configuration_blt.py, modular_blt.py ${R2}` }),
  blt_global_transformer: rope({ layout: 'interleaved', head: 'hidden', theta: 5e5, defaults: { max_position_embeddings: 4096 }, sizes: [2048, 16, 25], follows: 'cohere2', source: `blt/configuration_blt.py, modular_blt.py ${R2}` }),
  blt_patcher: rope({ layout: 'interleaved', head: 'hidden', defaults: { max_position_embeddings: 8192 }, sizes: [768, 12, 14], follows: 'cohere2', source: `blt/configuration_blt.py, modular_blt.py ${R2}` }),
  moonshine_streaming: like('moonshine', { defaults: { max_position_embeddings: 4096, partial_rotary_factor: 0.8 }, sizes: [320, 8, 6], source: `moonshine_streaming/configuration_moonshine_streaming.py ${R2}` }),
  youtu: like('deepseek_v3', { defaults: { max_position_embeddings: 131072 }, sizes: [2048, 16, 32], source: `youtu/configuration_youtu.py ${R2}` }),
  // MiniCPM3: DeepSeek-V2's attention (RoPE on qk_rope_head_dim of the head) in the half layout.
  minicpm3: mla({ layout: 'half', defaults: { max_position_embeddings: 32768, qk_rope_head_dim: 32, qk_nope_head_dim: 64 }, sizes: [2560, 40, 62], follows: 'deepseek_v2', source: `minicpm3/modular_minicpm3.py ${R2}` }),
  qwen3_5_text: like('qwen3_next', { mrope: { interleaved: true, section: [11, 11, 10] }, sizes: [4096, 16, 32], source: `qwen3_5/configuration_qwen3_5.py, modular_qwen3_5.py ${R2}` }),
  qwen3_5_moe_text: like('qwen3_next', { mrope: { interleaved: true, section: [11, 11, 10] }, sizes: [2048, 16, 40], source: `qwen3_5_moe/configuration_qwen3_5_moe.py ${R2}` }),
  qwen3_omni_moe_talker_code_predictor: like('qwen3', { sizes: [1024, 16, 5], source: `qwen3_omni_moe/configuration_qwen3_omni_moe.py ${R2}` }),
  // The talkers: the thinker's mRoPE, with their own defaults (Qwen3-Omni's talker has no default_theta: 10000).
  qwen3_omni_moe_talker_text: like('qwen3_omni_moe_text', { theta: 10000, sizes: [1024, 16, 20], source: `qwen3_omni_moe/configuration_qwen3_omni_moe.py ${R2}` }),
  qwen2_5_omni_talker: like('qwen2_5_omni_text', { defaults: { head_dim: 128 }, sizes: [3584, 28, 28], source: `qwen2_5_omni/configuration_qwen2_5_omni.py ${R2}` }),
  glm_ocr_text: like('glm4v_text', { defaults: { max_position_embeddings: 131072 }, sizes: [1024, 16, 16], source: `glm_ocr/modular_glm_ocr.py ${R2}` }),
  t5_gemma_module: like('gemma2', { sizes: [2304, 8, 26], source: `t5gemma/configuration_t5gemma.py ${R2}` }),
  t5gemma2_text: like('gemma3_text', { sizes: [2304, 8, 26], source: `t5gemma2/configuration_t5gemma2.py ${R2}` }),
  // Attention without positions.
  nemotron_h: { kind: 'none', defaults: { max_position_embeddings: 4096 }, source: `nemotron_h/configuration_nemotron_h.py ${R2}` },
  kimi_linear: { kind: 'none', defaults: { max_position_embeddings: 1048576 }, source: `kimi_linear/configuration_kimi_linear.py, modeling_kimi_linear.py ${R2}` },
});
FAMILIES.siglip2_text_model = like('siglip_text_model', { sizes: [768, 12, 12], source: `siglip2/modular_siglip2.py ${R2}` });
FAMILIES.owlv2_text_model = like('owlvit_text_model', { sizes: [512, 8, 12], source: `owlv2/configuration_owlv2.py ${R2}` });
FAMILIES.flaubert = like('xlm', { sizes: [2048, 16, 12], source: `flaubert/configuration_flaubert.py ${R2}` });
FAMILIES.EvollaModel = like('evolla', { sizes: [4096, 32, 32], source: `evolla/configuration_evolla.py (an alias of EvollaConfig) ${R2}` });
FAMILIES.seamless_m4t_v2 = like('seamless_m4t', { defaults: { max_position_embeddings: 4096 }, sizes: [1024, 16, 24], source: `seamless_m4t_v2/configuration_seamless_m4t_v2.py ${R2}` });

// Multimodal (and other) wrappers: the family of their text model, where HF finds its config (`path`, by default
// text_config), and whether a file without it keeps the text model's keys at its top level (older Qwen2-VL files do).
export const WRAPPERS = {
  gemma3: { text: 'gemma3_text' }, gemma3n: { text: 'gemma3n_text' }, shieldgemma2: { text: 'gemma3_text' },
  llama4: { text: 'llama4_text' }, mllama: { text: 'mllama_text_model' }, aria: { text: 'aria_text' },
  mistral3: { text: 'mistral' }, llava: { text: 'llama' }, llava_next: { text: 'llama' }, llava_onevision: { text: 'qwen2' },
  paligemma: { text: 'gemma' }, cohere2_vision: { text: 'cohere2' }, aya_vision: { text: 'cohere2' }, internvl: { text: 'qwen2' },
  smolvlm: { text: 'llama' }, idefics3: { text: 'llama' }, perception_lm: { text: 'llama' }, janus: { text: 'llama' },
  lfm2_vl: { text: 'lfm2' }, 'lfm2-vl': { text: 'lfm2' }, voxtral: { text: 'llama' }, fuyu: { text: 'persimmon', flat: true },
  qwen2_vl: { text: 'qwen2_vl_text', flat: true }, qwen2_5_vl: { text: 'qwen2_5_vl_text', flat: true },
  qwen3_vl: { text: 'qwen3_vl_text' }, qwen3_vl_moe: { text: 'qwen3_vl_moe_text' },
  // GLM-4V's, GLM-4V-MoE's and GLM-OCR's files may be flat: without a text_config HF builds it from the top-level keys.
  glm4v: { text: 'glm4v_text', flat: true }, glm4v_moe: { text: 'glm4v_moe_text', flat: true }, glm46v: { text: 'glm4v_text' },
  emu3: { text: 'emu3_text_model' },
  audioflamingo3: { text: 'qwen2' }, musicflamingo: { text: 'qwen2' }, qwen2_audio: { text: 'qwen2' }, fast_vlm: { text: 'qwen2' }, got_ocr2: { text: 'qwen2' },
  pp_chart2table: { text: 'qwen2' }, ovis2: { text: 'qwen2' }, video_llama_3: { text: 'qwen2' }, lighton_ocr: { text: 'qwen3' }, qianfan_ocr: { text: 'qwen3' },
  deepseek_vl: { text: 'llama' }, deepseek_vl_hybrid: { text: 'llama' }, llava_next_video: { text: 'llama' }, video_llava: { text: 'llama' }, vipllava: { text: 'llama' },
  idefics2: { text: 'mistral' }, granite_speech: { text: 'granite' }, exaone4_5: { text: 'exaone4' }, modernvbert: { text: 'modernbert' },
  'blip-2': { text: 'opt' }, instructblip: { text: 'opt' }, instructblipvideo: { text: 'opt' }, florence2: { text: 'bart' },
  'grounding-dino': { text: 'bert' }, 'mm-grounding-dino': { text: 'bert' }, glmga: { text: 'glm4v_text' },
  qwen2_5_omni_thinker: { text: 'qwen2_5_omni_text' }, qwen3_omni_moe_thinker: { text: 'qwen3_omni_moe_text' },
  deepseek_ocr2: { text: 'deepseek_ocr2_text' }, cosmos3_edge: { text: 'cosmos3_edge_text' }, paddleocr_vl: { text: 'paddleocr_vl_text', flat: true },
  clip: { text: 'clip_text_model' }, colpali: { text: 'gemma', path: ['vlm_config', 'text_config'] }, colqwen2: { text: 'qwen2_vl_text', path: ['vlm_config', 'text_config'] },
  qwen2_5_omni: { text: 'qwen2_5_omni_text', path: ['thinker_config', 'text_config'] }, qwen3_omni_moe: { text: 'qwen3_omni_moe_text', path: ['thinker_config', 'text_config'] },
};

// Read in the second round. `text: null`: HF takes any model there, named by its model_type (an encoder-decoder's
// decoder); `defaultText`: the text config HF builds where the file has none (SAM 3's is not CLIPTextConfig's
// defaults); `fills`: keys HF fills into a given text config where it lacks them (Voxtral Realtime's).
Object.assign(WRAPPERS, {
  aimv2: { text: 'aimv2_text_model' }, align: { text: 'align_text_model' }, altclip: { text: 'altclip_text_model' }, blip: { text: 'blip_text_model' },
  bridgetower: { text: 'bridgetower_text_model' }, chinese_clip: { text: 'chinese_clip_text_model' }, clap: { text: 'clap_text_model' },
  clipseg: { text: 'clipseg_text_model' }, flava: { text: 'flava_text_model' }, groupvit: { text: 'groupvit_text_model' }, metaclip_2: { text: 'metaclip_2_text_model' },
  owlv2: { text: 'owlv2_text_model' }, owlvit: { text: 'owlvit_text_model' }, siglip: { text: 'siglip_text_model' }, siglip2: { text: 'siglip2_text_model' },
  xclip: { text: 'xclip_text_model' }, tipsv2: { text: 'tipsv2_text_model', flat: true }, videoprism: { text: 'videoprism_text_model' },
  sam3: { text: 'clip_text_model', defaultText: { max_position_embeddings: 32, hidden_size: 1024, num_attention_heads: 16 } },
  'omdet-turbo': { text: 'clip_text_model' }, pix2struct: { text: 'pix2struct_text_model' },
  'kosmos-2': { text: 'kosmos_2_text_model' }, 'kosmos-2.5': { text: 'kosmos_2_5_text_model' },
  'encoder-decoder': { text: null, path: ['decoder'] }, 'vision-encoder-decoder': { text: null, path: ['decoder'] }, nougat: { text: null, path: ['decoder'] },
  'speech-encoder-decoder': { text: 'bert', path: ['decoder'] }, 'vision-text-dual-encoder': { text: null }, rag: { text: null, path: ['generator'] },
  voxtral_realtime: { text: 'voxtral_realtime_text', fills: { rope_theta: 1e6, head_dim: 128, sliding_window: 8192 } },
  qwen3_5: { text: 'qwen3_5_text' }, qwen3_5_moe: { text: 'qwen3_5_moe_text' }, qwen3_asr: { text: 'qwen3' }, fun_asr_nano: { text: 'qwen3' },
  minicpmv4_6: { text: 'qwen3_5_text' }, minicpmv4_7: { text: 'qwen3_5_text' }, nemotron_h_omni: { text: 'nemotron_h' },
  kimi_k25: { text: 'deepseek_v3' }, hyperclovax_vision_v2: { text: 'hyperclovax' }, granite4_vision: { text: 'llama' }, granite_speech_plus: { text: 'granite' },
  glm_ocr: { text: 'glm_ocr_text', flat: true }, colmodernvbert: { text: 'modernbert', path: ['vlm_config', 'text_config'] }, cosmos3_omni: { text: 'qwen3_vl_text' },
  pi0: { text: 'gemma', path: ['vlm_config', 'text_config'] }, vibevoice: { text: 'qwen2' }, vibevoice_asr: { text: 'qwen2' },
  t5gemma2_encoder: { text: 't5gemma2_text' },
});

// Families HF ships with positions that modelPositions does not read yet, and why: each is refused with its reason
// rather than read as a family it resembles.
export const NOT_READ = {
  phimoe: 'its LongRoPE multiplies cos and sin by short_mscale / long_mscale (chosen by the sequence length) instead of the rule\'s attention factor; posembed\'s LongRoPE has one factor',
  longcat_flash: 'two MLA sublayers per layer and query scales from the LoRA ranks (sqrt(hidden_size / q_lora_rank) on the rotary part only): its score scale is not one number',
  t5gemma: 'an encoder and a decoder config (config.encoder, config.decoder), each with its own RoPE, and cross-attention without it',
  t5gemma2: 'an encoder and a decoder config, and decoder queries that attend to rotated self keys and unrotated cross keys in one softmax',
  blt: 'four sub-configs (encoder, decoder, global, patcher), each with its own RoPE base and head size',
  csm: 'a backbone and a depth decoder, each with its own RoPE config',
  dia: 'an encoder and a decoder config, each with its own RoPE; scores unscaled',
  moshi: 'a temporal decoder with RoPE and a depth decoder without it, in one config',
  kyutai_speech_to_text: 'follows moshi (a temporal decoder with RoPE and its codec config)',
  zamba2: 'RoPE only in the shared attention blocks, and only with use_mem_rope; its layer pattern comes from the hybrid block layout',
  dbrx: 'its checkpoints keep rope_theta inside attn_config, which HF v5\'s rotary does not read (it would use 10000): a silent difference posembed will not guess at',
  esm: 'its rotary ignores position_ids (always 0 … L − 1) and scales the query before turning it',
  roformer: 'an interleaved table built from a sin-then-cos sinusoid, optionally turning the values too (rotary_value)',
  deberta: 'disentangled relative attention (content-to-position and position-to-content terms), not a positional table',
  'deberta-v2': 'disentangled relative attention with log buckets (position_buckets), not a positional table',
  xlnet: 'relative sinusoidal encodings with learned biases (r_w_bias, r_r_bias) and two streams',
  whisper: 'a sinusoidal encoder table stored as weights and a learned decoder table: two tables of different kinds',
  speech_to_text: 'separate encoder and decoder tables (max_source_positions, max_target_positions) over subsampled audio frames',
  fsmt: 'a table of max_position_embeddings + pad_token_id + 1 rows, positions from the non-pad tokens, separately per language side',
  led: 'separate encoder and decoder tables (max_encoder_position_embeddings, max_decoder_position_embeddings)',
  prophetnet: 'positions from the attention mask (cumsum + pad_token_id), clamped to the table, and n-gram streams',
  trocr: 'learned or fairseq sinusoidal positions by use_learned_position_embeddings, in a decoder-only config',
  mpnet: 'a RoBERTa-offset table and a T5-style relative bias (its maximum distance fixed at 128 in code) in every layer',
  udop: 'T5 buckets plus 2-D (horizontal, vertical) relative biases over the page layout',
  reformer: 'axial position embeddings (axial_pos_shape), whose usable length is the product of the axes',
  tapas: 'positions that restart inside each table cell (reset_position_index_per_cell)',
  funnel: 'relative sinusoidal attention over pooled blocks',
  canine: 'several hashed character embeddings with a learned position table per downsampling stage',
};

// Families with text positions that HF's main branch added since (its configuration_auto, November 2026): each is
// refused with what sets it apart where its source was read, else as not read yet, rather than guessed.
Object.assign(NOT_READ, {
  gemma4_text: 'full-attention layers on a second head size (global_head_dim) with proportional RoPE, sliding layers on head_dim: two head sizes in one model',
  gemma4_unified_text: 'as gemma4_text: full-attention layers on global_head_dim with proportional RoPE, sliding ones on head_dim',
  diffusion_gemma_text: 'as gemma4_text: full-attention layers on global_head_dim with proportional RoPE, sliding ones on head_dim',
  deepseek_v4: 'RoPE on the last qk_rope_head_dim channels of a 512-wide head, with two rope settings (main, compress) by layer, and the output turned back',
  cohere2_moe: 'full-attention layers without positions except the dense prefix layers, which turn (prefix_dense_sliding_window_pattern)',
  cohere_compass_text: 'per-layer-type rope_parameters where a None entry means no positions, and interleaved mRoPE sections',
  granite_swa: 'a base per layer (layer_rope_theta; 0: no positions)',
  granitemoe_swa: 'a base per layer (layer_rope_theta; 0: no positions), as granite_swa',
  muse_glimmer_text: 'a base per layer (layer_rope_theta; 0: no positions) and a query scale (qk_scale_factor)',
  glm_moe_dsa: 'its layout: the rope_interleave of its docstring and the code read disagree between versions',
  glm5_next_text: 'no positions unless qk_rope_head_dim is set, on every fourth (sparse attention) layer only',
  hunyuan_vl_text: 'XD-RoPE sections applied over the doubled cos table (the two halves of a pair from different position axes)',
  ernie4_5_vl_moe_text: '3-D positions whose height and width alternate over the first pairs and time takes the last: a section layout of its own',
  laguna: 'per-layer-type rope_parameters (a partial rotary factor per type) with layer types by default all full',
  zaya: 'partial rotary only when rope_parameters is absent, and queries and keys normalised to \u221ahead_dim with a learned key temperature',
  cohere_asr: 'an ASR encoder-decoder whose decoder adds a learned table at its input (the rope_parameters it fills go unused)',
  hy_v4: 'MLA with a rotary slice and an indexer of its own (not read in full)',
});
// Read in the second round (November 2026): what sets each apart, where one table of positions cannot describe it
// or its sources disagree.
Object.assign(NOT_READ, {
  blip_2_qformer: 'learned query tokens without positions placed before the text tokens, whose positions restart at 0 (and BLIP-2 itself passes no text)',
  sam3_lite_text_text_model: 'its learned table is resampled (bilinearly) to the sequence length: a position\'s row depends on the length',
  bros: '2-D layout positions: sinusoids of bounding-box differences projected per pair of tokens',
  layoutlmv2: 'a 1-D table, 2-D bounding-box tables and bucketed 1-D and 2-D relative biases',
  layoutxlm: 'as layoutlmv2: a 1-D table, 2-D bounding-box tables and bucketed 1-D and 2-D relative biases',
  layoutlmv3: 'a 1-D table from pad_token_id + 1, 2-D bounding-box tables and bucketed relative biases divided by √head',
  lxmert: 'three encoders (language, cross-modality and vision layers: l_layers, x_layers, r_layers), no single layer count',
  perceiver: 'positions only on the input array (bytes), none in the latent layers that attend',
  cpmant: 'T5-like bidirectional buckets plus segment-pair buckets, added after the 1/√head scaling, in a causal model',
  bark: 'three sub-models (semantic, coarse and fine acoustics), each with its own learned table',
  clvp: 'three towers: text and speech encoders (partial RoPE on queries, keys and values) and a decoder',
  clvp_encoder: 'RoPE on queries, keys and values, over max(projection_dim // (2 · heads), 32) of the head, base fixed at 10000',
  clvp_decoder: 'conditioning embeddings (mel and text, with positions of their own) before the speech tokens',
  fnet: 'no attention (a Fourier transform mixes the tokens): no q·k for a layer\'s positions to describe',
  speecht5: 'four position schemes (a scaled sinusoid with a learned scale, a relative bias in the encoder, and the speech pre-nets\')',
  moshi_depth: 'no position table: the codebook index selects per-step projection weights',
  canary_decoder: 'a sinusoidal table divided by √hidden_size',
  musicgen_decoder: 'a sinusoidal table with the cosines first (cos | sin)',
  musicgen_melody_decoder: 'as musicgen_decoder, its table with the cosines first, and the conditioning placed before the audio tokens',
  nomic_bert: 'versions of its port disagree: some read rotary_emb_fraction, rotary_emb_base and rotary_emb_interleaved, the newest ignores them for a Llama rotary on base 1000',
  mellum: 'it reads only rope_parameters (a top-level rope_theta or rope_scaling in its file is ignored) with layer types all full by default',
  mimo_v2_flash: 'per-layer-type rope_parameters (full-attention layers on 5e6, sliding ones on 1e4) over a rotary dimension of int(192 × 0.334), ignoring a top-level rope_theta',
  neomme: 'per-layer-type rope_parameters with a partial factor per type (0.25 on full-attention layers, the whole head on sliding ones) and 2-D positions',
  minimax_m2: 'versions of its source disagree on rotary_dim (read into a partial factor, or not read: the whole head) and on its base',
  minimax_m3_vl_text: 'where its rotary reads rotary_dim was not found in its source',
  mistral4: 'MLA head sizes forced to 64 + 64 with a partial factor of 0.5, YaRN by default, and a query scale (Llama 4\'s, beta 0.1) over the whole query',
  olmo_hybrid: 'RoPE only where rope_parameters holds a rope_theta (its released checkpoints have none), with a float32 cache',
  qwen4_exp_text: 'its attention layers\' types (deepseek_sparse_attention, hybrid_indexed) and their sparse indexer were read from its modular file only',
  step3p5: 'a rope_theta per layer, a partial factor per layer (partial_rotary_factors) and scaling only on the layers in yarn_only_types',
  inkling_text: 'learned, content-dependent relative-position logits (d_rel, rel_extent) with convolutions, and no RoPE',
  glm_image_text: 'versions of its source disagree on its layout (interleaved or half) and default partial factor (0.5 or 1.0)',
  t5gemma2_decoder: NOT_READ.t5gemma2,
});

// Composite configs whose text model is refused: refused with its reason.
const refusedText = (key, text) => `its text model (${key}) is ${text}: ${NOT_READ[text]}`;
Object.assign(NOT_READ, {
  gemma4: refusedText('text_config', 'gemma4_text'), gemma4_assistant: refusedText('text_config', 'gemma4_text'),
  gemma4_unified: refusedText('text_config', 'gemma4_unified_text'), gemma4_unified_assistant: refusedText('text_config', 'gemma4_unified_text'),
  diffusion_gemma: refusedText('text_config', 'diffusion_gemma_text'), muse_glimmer: refusedText('text_config', 'muse_glimmer_text'),
  glm5_next: refusedText('text_config', 'glm5_next_text'), hunyuan_vl: refusedText('text_config', 'hunyuan_vl_text'),
  ernie4_5_vl_moe: refusedText('text_config', 'ernie4_5_vl_moe_text'), cohere_compass: refusedText('text_config', 'cohere_compass_text'),
  qwen4_exp: refusedText('text_config', 'qwen4_exp_text'), minimax_m3_vl: refusedText('text_config', 'minimax_m3_vl_text'),
  step3p7: refusedText('text_config', 'step3p5'), inkling_mm_model: refusedText('text_config', 'inkling_text'),
  glm_image: refusedText('text_config', 'glm_image_text'), sam3_lite_text: refusedText('text_config', 'sam3_lite_text_text_model'), canary: refusedText('decoder_config', 'canary_decoder'),
  musicgen: refusedText('decoder', 'musicgen_decoder'), musicgen_melody: refusedText('decoder', 'musicgen_melody_decoder'),
  esmfold2: 'a folding trunk with 3-D RoPE of its own around an ESM C language model, not read in full',
  glmasr: 'its config injects rope_parameters (base 10000) into its text config, which may override a rope_theta there: not confirmed in its source',
});

// Families without attention: nothing to position (their recurrence carries order).
export const NO_POSITIONS = {
  mamba: 'a state-space model: its recurrence carries order', mamba2: 'a state-space model: its recurrence carries order',
  falcon_mamba: 'a state-space model: its recurrence carries order', rwkv: 'a linear-recurrent model: its recurrence carries order',
  xlstm: 'a recurrent model: its recurrence carries order',
};
