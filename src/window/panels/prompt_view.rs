//! The inspector's prompt view: the selected resident's last LLM prompt,
//! layer by layer (核心人设 … 相关历史) with the tokens each took after the
//! budget's cuts, then the messages as sent.

use bevy_egui::egui;

use crate::context::Layer;
use crate::llm::LlmBrain;
use crate::sim::residents::RosterIdx;

/// The section; nothing when no LLM drives the town or this resident has
/// not been prompted yet.
pub(super) fn prompt_section(ui: &mut egui::Ui, brain: Option<&LlmBrain>, idx: Option<RosterIdx>) {
    let Some(shown) = brain.zip(idx).and_then(|(b, i)| b.last_prompt(i)) else {
        return;
    };
    let layers = &shown.layers;
    let total: usize = Layer::ALL.iter().map(|&l| layers.tokens(l)).sum();
    let title = format!(
        "提示词（{} · {} · {} tokens）",
        shown.kind.as_str(),
        shown.time.stamp(),
        total
    );
    egui::CollapsingHeader::new(title)
        .id_salt("prompt_view")
        .default_open(false)
        .show(ui, |ui| {
            ui.label(format!(
                "模型 {} · 预算裁掉 {} 条",
                shown.model,
                layers.layer_tokens().cut
            ));
            for layer in Layer::ALL {
                let items: Vec<&str> = layers.items(layer).collect();
                if items.is_empty() {
                    continue;
                }
                egui::CollapsingHeader::new(format!(
                    "{}（{} tokens）",
                    layer.label(),
                    layers.tokens(layer)
                ))
                .id_salt(("prompt_layer", layer as u8))
                .show(ui, |ui| {
                    for item in items {
                        ui.label(item);
                    }
                });
            }
            egui::CollapsingHeader::new("发送的消息")
                .id_salt("prompt_messages")
                .show(ui, |ui| {
                    for m in &shown.messages {
                        ui.monospace(format!("[{:?}]", m.role));
                        ui.label(&m.content);
                    }
                });
        });
}
