package cli

import (
	"context"
	"encoding/json"

	"github.com/askback/askback/internal/answer"
	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/spf13/cobra"
)

// ListOptions are the options of the list and single-call subcommands of
// tools, prompts and resources.
type ListOptions struct {
	IO   *iostreams.IOStreams
	Conn ConnOptions
	JSON bool
	Args string
}

func newToolsCmd(io *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "List a server's tools"}
	opts := &ListOptions{IO: io}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the server's tools",
		Example: `  mcp-tester tools list -c ./deployer`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := opts.Conn.open(cmd.Context(), io, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			tools, err := s.ListTools(cmd.Context())
			if err != nil {
				return err
			}
			if opts.JSON {
				return printer.JSON(io.Out, tools)
			}
			printer.Tools(io.Out, tools)
			return nil
		},
	}
	addConnFlags(list, &opts.Conn)
	list.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.AddCommand(list)
	return cmd
}

func newPromptsCmd(io *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "prompts", Short: "Get a server's prompts"}
	opts := &ListOptions{IO: io}
	get := &cobra.Command{
		Use:     "get NAME",
		Short:   "Get a prompt and answer the questions it asks",
		Example: `  mcp-tester prompts get release-notes -c ./server --args '{"version":"2.4.1"}' --elicit accept`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPromptGet(cmd.Context(), opts, args[0])
		},
	}
	addConnFlags(get, &opts.Conn)
	addElicitFlag(get, &opts.Conn)
	get.Flags().StringVar(&opts.Args, "args", "{}", "the prompt's arguments as a JSON object of strings")
	get.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.AddCommand(get)
	return cmd
}

func runPromptGet(ctx context.Context, opts *ListOptions, name string) error {
	var args map[string]string
	if opts.Args != "" {
		if err := json.Unmarshal([]byte(opts.Args), &args); err != nil {
			return usageErr("--args: a prompt takes a JSON object of strings: %v", err)
		}
	}
	specs, err := opts.Conn.specs()
	if err != nil {
		return err
	}
	s, err := opts.Conn.open(ctx, opts.IO, answer.Chain{answer.NewQueue(specs...), humanAnswerer(opts.IO, &opts.Conn)})
	if err != nil {
		return err
	}
	defer s.Close()
	res, _, err := s.GetPrompt(ctx, name, args, nil)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printer.JSON(opts.IO.Out, res)
	}
	printer.PromptResult(opts.IO.Out, res)
	return nil
}

func newResourcesCmd(io *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "resources", Short: "Read a server's resources"}
	opts := &ListOptions{IO: io}
	read := &cobra.Command{
		Use:     "read URI",
		Short:   "Read a resource and answer the questions it asks",
		Example: `  mcp-tester resources read config://prod -c ./server --elicit accept`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			specs, err := opts.Conn.specs()
			if err != nil {
				return err
			}
			s, err := opts.Conn.open(cmd.Context(), io, answer.Chain{answer.NewQueue(specs...), humanAnswerer(io, &opts.Conn)})
			if err != nil {
				return err
			}
			defer s.Close()
			res, _, err := s.ReadResource(cmd.Context(), args[0], nil)
			if err != nil {
				return err
			}
			if opts.JSON {
				return printer.JSON(io.Out, res)
			}
			printer.ResourceResult(io.Out, res)
			return nil
		},
	}
	addConnFlags(read, &opts.Conn)
	addElicitFlag(read, &opts.Conn)
	read.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.AddCommand(read)
	return cmd
}

func newPingCmd(io *iostreams.IOStreams) *cobra.Command {
	opts := &ListOptions{IO: io}
	cmd := &cobra.Command{
		Use:     "ping",
		Short:   "Check that a server answers",
		Example: `  mcp-tester ping -c ./deployer`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := opts.Conn.open(cmd.Context(), io, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			if err := s.Ping(cmd.Context()); err != nil {
				return err
			}
			io.Out.Write([]byte("pong\n"))
			return nil
		},
	}
	addConnFlags(cmd, &opts.Conn)
	return cmd
}
