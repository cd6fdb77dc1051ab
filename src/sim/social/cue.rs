//! What a line does in its conversation — a greeting, a question from an
//! exchange, an order, news, a grumble, a sharp answer — as the brain that
//! wrote it knows. The next speaker answers the cue, not the words; the
//! line's emotion follows from it; news told reaches the listeners. A
//! model's line carries none (its words and its own label speak for it).

use serde::{Deserialize, Serialize};

use super::emotion::Emotion;
use crate::scenario::dialogue::ExchangeRef;
use crate::scenario::{GatheringIdx, WorkRole};
use crate::sim::knowledge::facts::About;
use crate::sim::residents::TalkOutcome;

/// What a line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "act", rename_all = "snake_case")]
pub enum Cue {
    /// An opening greeting.
    Greeting,
    /// An answer that asks nothing back (a greeting returned).
    Answer,
    /// A line of an exchange, awaiting its replies.
    Asked {
        /// The exchange.
        x: ExchangeRef,
    },
    /// A reply from an exchange.
    Replied {
        /// The exchange.
        x: ExchangeRef,
    },
    /// A staff member's greeting.
    StaffGreeting {
        /// In which role.
        role: WorkRole,
    },
    /// A staff member offering a regular their usual.
    Usual {
        /// In which role.
        role: WorkRole,
    },
    /// The regular's yes to it.
    UsualTaken {
        /// In which role.
        role: WorkRole,
    },
    /// Serving what was asked for.
    Served,
    /// A grumble (its index in `moods.grumble`).
    Grumble {
        /// Which.
        i: u16,
    },
    /// A sigh (its index in `moods.sad`).
    Sigh {
        /// Which.
        i: u16,
    },
    /// A kind answer to a mood.
    Comfort,
    /// A sharp answer to a grumble: an argument.
    Argue,
    /// Smoothing a sharp word over.
    Soothe,
    /// Answering a sharp word in kind and walking off.
    StormOff,
    /// News told.
    News {
        /// What.
        about: About,
        /// The teller is part of it.
        first: bool,
    },
    /// Hearing news.
    NewsHeard {
        /// What was heard.
        about: About,
    },
    /// An opening from something the two lived, or one did to the other.
    Shared {
        /// Its exchange (in `greetings.shared.<kind>`).
        x: ExchangeRef,
        /// The fact it is about.
        about: About,
    },
    /// Answering that.
    SharedBack {
        /// The fact it is about.
        about: About,
    },
    /// An opening that brings up the last talk, which went this way.
    Recall {
        /// How it went.
        how: TalkOutcome,
    },
    /// Answering that.
    RecallBack,
    /// An organiser's invitation.
    Invite,
    /// The guest's answer.
    InviteAnswer,
    /// Proposing to meet.
    Propose,
    /// Accepting.
    Accept,
    /// An organiser's welcome.
    Welcome,
    /// A guest's thanks.
    ThankHost,
    /// Telling of a gathering one is going to.
    Going {
        /// Which.
        gathering: GatheringIdx,
    },
    /// Answering that.
    GoingReply,
    /// A goodbye.
    Goodbye,
}

impl Cue {
    /// Whether the line waits for an answer from the one it was said to.
    pub fn awaits_answer(self) -> bool {
        matches!(
            self,
            Cue::Greeting
                | Cue::Asked { .. }
                | Cue::StaffGreeting { .. }
                | Cue::Usual { .. }
                | Cue::UsualTaken { .. }
                | Cue::Grumble { .. }
                | Cue::Sigh { .. }
                | Cue::Argue
                | Cue::News { .. }
                | Cue::Shared { .. }
                | Cue::Recall { .. }
                | Cue::Invite
                | Cue::Propose
                | Cue::Welcome
                | Cue::Going { .. }
        )
    }

    /// The emotion the line carries by what it does, when that settles it:
    /// only a sharp answer is angry; a sigh or a grumble is low.
    pub fn emotion(self) -> Option<Emotion> {
        match self {
            Cue::Argue | Cue::StormOff => Some(Emotion::Angry),
            Cue::Sigh { .. } | Cue::Grumble { .. } => Some(Emotion::Sad),
            Cue::Soothe => Some(Emotion::Neutral),
            _ => None,
        }
    }
}
