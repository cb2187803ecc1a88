// Entry: the query cache (server state), the live event stream that feeds it, the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './app.js';
import { LiveProvider } from './live.js';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    // The stream says when data changes; nothing is refetched on a timer or on focus.
    queries: { staleTime: Infinity, refetchOnWindowFocus: false, retry: 1 },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <LiveProvider>
        <App />
      </LiveProvider>
    </QueryClientProvider>
  </StrictMode>,
);
