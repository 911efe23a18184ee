import { render } from 'preact';
import { App } from './app.tsx';
import './ui/styles.css';

render(<App />, document.getElementById('app')!);
