import type { TemplateDef } from '../types.js';

export const runbook: TemplateDef = {
  id: 'runbook',
  title: 'On-call runbook',
  subtitle: 'Everything an on-call engineer needs for one service',
  emoji: '🚨',
  features: [
    'Service overview with SLOs and dependencies',
    'Alert catalogue',
    'Diagnosis and mitigation steps',
    'Escalation contacts',
    'Blameless postmortem template',
  ],
  slots: {
    architecture: { usage: 'image', description: 'Architecture diagram shown on the Service overview page' },
  },
  dir: new URL('./', import.meta.url),
  pages: [
    {
      key: 'service-overview',
      title: 'Service overview',
      emoji: '🗺️',
      description: 'What the service does, who owns it, where to look',
      file: 'service-overview.md',
    },
    { key: 'alerts', title: 'Alerts', emoji: '🔔', description: 'Every alert, its severity and first step', file: 'alerts.md' },
    { key: 'diagnosis', title: 'Diagnosis', emoji: '🔎', description: 'Finding out what is wrong', file: 'diagnosis.md' },
    { key: 'mitigation', title: 'Mitigation', emoji: '🩹', description: 'Stopping the customer impact', file: 'mitigation.md' },
    { key: 'escalation', title: 'Escalation', emoji: '📣', description: 'Who to call and how to communicate', file: 'escalation.md' },
    {
      key: 'postmortem-template',
      title: 'Postmortem template',
      emoji: '📝',
      description: 'Copy for every significant incident',
      file: 'postmortem-template.md',
    },
  ],
};
