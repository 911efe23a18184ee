import { useEffect, useState } from 'preact/hooks';
import { href } from '../ui/router.ts';
import { ErrorMessage, Spinner, when } from '../ui/widgets.tsx';
import { userJobs, type JobInfo } from './job-api.ts';
import { JobView } from './job-view.tsx';

function JobList() {
  const [jobs, setJobs] = useState<JobInfo[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    userJobs().then(setJobs, setError);
  }, []);
  return (
    <section class="page" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      <p>
        Large searches (up to 100,000 neighbours) run as durable jobs. Start one from the{' '}
        <a href={href('search')}>Search</a> page (“Larger search as a job”).
      </p>
      <ErrorMessage error={error} />
      {!jobs && !error && <Spinner label="Loading your jobs…" />}
      {jobs && jobs.length === 0 && <p>No jobs yet.</p>}
      {jobs && jobs.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Query</th>
              <th scope="col">Status</th>
              <th scope="col">Rows</th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.job_name}>
                <td>
                  <a href={href('jobs', j.job_name)}>{j.job_name}</a>
                </td>
                <td>
                  <code>{String(j.parameters.search_input ?? '')}</code>
                </td>
                <td>
                  <span class={`badge ${j.status.toLowerCase()}`}>{j.status}</span>
                </td>
                <td>{j.rows ?? '–'}</td>
                <td>{when(j.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function JobsPage(props: { id?: string }) {
  return props.id ? <JobView name={props.id} key={props.id} /> : <JobList />;
}
