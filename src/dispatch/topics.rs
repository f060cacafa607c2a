//! The topics made ready before the first pass: the missing ones created
//! (state compacted, change deleting by time, heartbeat compacted), the
//! state topic's `cleanup.policy` checked, and the wait for a broker that
//! is not there yet.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{Dispatcher, OutboxError, TOPIC_WAIT, sleep_unless};
use crate::kafka::{
    CHANGE_TOPIC_POLICY, LinkError, NewTopicSpec, STATE_TOPIC_POLICY, TopicAdmin, TopicError,
    keeps_every_flight,
};
use crate::store::Store;

impl<S: Store> Dispatcher<S> {
    /// Makes the topics ready: creates the missing ones (when
    /// `create_topics` is set: the state topic compacted, the change topic
    /// deleting by time), then reads the state topic's `cleanup.policy` and
    /// refuses one that is not `compact` alone, unless
    /// `allow_uncompacted_state_topic` (then it warns, also when the broker
    /// cannot report the policy).
    ///
    /// # Errors
    ///
    /// [`OutboxError::Topic`] when the broker cannot be reached or refuses;
    /// [`OutboxError::UncompactedStateTopic`].
    pub fn prepare_topics(&self) -> Result<(), OutboxError> {
        self.kafka
            .client
            .metadata(None, TOPIC_WAIT)
            .map_err(|e| OutboxError::Topic(e.into()))?;
        let admin =
            TopicAdmin::new(&self.kafka.client, TOPIC_WAIT).map_err(OutboxError::Producer)?;
        let state_topic = &self.settings.state_topic;
        if self.kafka.create_topics {
            let spec = |name, policy| NewTopicSpec {
                name,
                partitions: self.kafka.topic_partitions,
                replication: self.kafka.topic_replication,
                policy,
            };
            let mut specs = vec![
                spec(state_topic, STATE_TOPIC_POLICY),
                spec(&self.settings.change_topic, CHANGE_TOPIC_POLICY),
            ];
            if let Some(heartbeat) = &self.heartbeat {
                // Compacted like the state topic: a consumer starting late
                // finds each station's last heartbeat.
                specs.push(spec(&heartbeat.settings.topic, STATE_TOPIC_POLICY));
            }
            let created = admin.create(&specs).map_err(OutboxError::Topic)?;
            for topic in created {
                tracing::info!(topic, "created topic");
            }
        }
        let policy = match admin.cleanup_policy(state_topic) {
            Ok(policy) => policy.unwrap_or_else(|| "(not reported by the broker)".to_owned()),
            // The site has accepted any policy: one the broker cannot report
            // is accepted too, and said.
            Err(e) if self.kafka.allow_uncompacted_state_topic => {
                tracing::warn!(
                    error = %e,
                    "the state topic's cleanup.policy could not be read; dispatching anyway: \
                     `kafka.allow_uncompacted_state_topic` is set"
                );
                return Ok(());
            }
            Err(e) => return Err(OutboxError::Topic(e)),
        };
        if keeps_every_flight(&policy) {
            return Ok(());
        }
        let uncompacted = OutboxError::UncompactedStateTopic {
            topic: state_topic.clone(),
            policy,
        };
        if !self.kafka.allow_uncompacted_state_topic {
            return Err(uncompacted);
        }
        tracing::warn!(
            error = %uncompacted,
            "dispatching to it anyway: `kafka.allow_uncompacted_state_topic` is set"
        );
        Ok(())
    }

    /// [`Dispatcher::prepare_topics`] until it succeeds (true) or `stop`
    /// is set (false), waiting from `backoff_initial` up to `backoff_max`
    /// between tries. The first failure is logged at `warn` and the tries
    /// after it at `debug`; a broker's refusal of the client is logged at
    /// `error` instead, once for the outage, whichever of this wait and the
    /// lanes' producers meets it first (they share the [`Link`]). With `until_idle`, the
    /// first failure ends the wait.
    pub(super) fn wait_for_topics(
        &self,
        stop: &AtomicBool,
        until_idle: bool,
    ) -> Result<bool, OutboxError> {
        let mut wait = self.settings.backoff_initial;
        let mut told = false;
        while !stop.load(Ordering::SeqCst) {
            let e = match self.prepare_topics() {
                Ok(()) => return Ok(true),
                Err(e) if until_idle || !e.kind().retryable() => return Err(e),
                Err(e) => e,
            };
            let error = crate::failure::Causes(&e);
            match &e {
                OutboxError::Topic(TopicError::Link(LinkError::Refused(refusal)))
                    if self.link.refused(&refusal.detail) =>
                {
                    tracing::error!(%error, "topics not ready; will retry")
                }
                _ if told => tracing::debug!(%error, "topics not ready; will retry"),
                OutboxError::Topic(TopicError::Link(LinkError::Refused(_))) => {
                    tracing::debug!(%error, "topics not ready; will retry")
                }
                _ => tracing::warn!(%error, "topics not ready; will retry"),
            }
            told = true;
            sleep_unless(&[stop], wait);
            wait = (wait * 2).min(self.settings.backoff_max);
        }
        Ok(false)
    }
}
