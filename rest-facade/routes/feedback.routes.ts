// Feedback and what it changes: every change recomputes the subject's Rating (CONTRACT §5, §7).
import type { RouteModule } from '../route.types.js';

export const feedbackRoutes: RouteModule = {
  routes: [
    { method: 'GET', path: '/feedbacks', operation: 'feedbacks', summary: 'Search feedback' },
    { method: 'GET', path: '/feedbacks/{Id}', operation: 'feedback', ttl: 30, summary: 'Get a feedback' },
    {
      method: 'PATCH',
      path: '/feedbacks/{Id}',
      operation: 'updateFeedback',
      invalidates: ['Rating'],
      summary: 'Change a feedback',
    },
    {
      method: 'DELETE',
      path: '/feedbacks/{Id}',
      operation: 'deleteFeedback',
      invalidates: ['Feedback', 'Rating'],
      summary: 'Delete a feedback',
    },
  ],
};
