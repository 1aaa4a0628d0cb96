import type { ComponentType } from 'react';
import { DashboardPage } from './dashboard/dashboard-page';
import { DatasetsPage } from './datasets/datasets-page';
import { EvaluationsPage } from './evaluations/evaluations-page';
import { PromptsPage } from './prompts/prompts-page';
import { RequestsPage } from './requests/requests-page';
import { ReviewQueuePage } from './review/review-queue-page';
import { SettingsPage } from './settings/settings-page';
import { TracesPage } from './traces/traces-page';

export interface PageSpec {
  path: string;
  title: string;
  icon: string;
  component: ComponentType;
}

/** The sidebar, in order; the number keys 1–9 jump to the page at that position. */
export const PAGES: PageSpec[] = [
  { path: '/requests', title: 'Requests', icon: '≡', component: RequestsPage },
  { path: '/review', title: 'Review', icon: '★', component: ReviewQueuePage },
  { path: '/traces', title: 'Traces', icon: '⋔', component: TracesPage },
  { path: '/dashboard', title: 'Dashboard', icon: '▤', component: DashboardPage },
  { path: '/prompts', title: 'Prompts', icon: '✎', component: PromptsPage },
  { path: '/datasets', title: 'Datasets', icon: '▦', component: DatasetsPage },
  { path: '/evaluations', title: 'Evaluations', icon: '✓', component: EvaluationsPage },
  { path: '/settings', title: 'Settings', icon: '⚙', component: SettingsPage },
];
